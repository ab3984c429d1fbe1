// Preloaded (`--node-arg=--require=…/processinfo-off.cjs` in package.json's test:* scripts) by every test process of
// the compiled tiers, before tap's `--import` hooks start their loader thread: that thread takes its copy of the
// environment then, and with this pattern @tapjs/processinfo records no module. Otherwise it sent each module's whole
// text back to the test process, which split it into lines and parsed its source map (Node's findSourceMap): 0.25 to
// 0.3 s of CPU per test process before its first assertion (1.87 -> 1.60 s for cli-pass9, 5.0 -> 4.74 s for an
// integration group). What it records feeds only coverage and `tap --changed`, which the tiers do not use
// (package.json: "disable-coverage"). A `--require` runs before any `--import`; an `--import` of ours would run after
// tap's, too late. tap's runner sets the variable for each test process itself, so `--test-env` cannot.
process.env._TAPJS_PROCESSINFO_EXCLUDE_ = '/./';
