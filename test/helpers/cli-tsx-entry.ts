// The CLI as bin/reboot-harness.js starts it (tsx registered before the CLI runs, for the user scenarios it loads), but
// from the compiled entry when the tests run compiled: what test/helpers/cli-tsx.ts `CLI_TS` names. Not a test file.
// Both imports are static, so Node loads the compiled entry and the modules it imports statically before it evaluates
// either; ts-loader.js then registers tsx, and the entry runs with it. tsx's hooks so see only what the CLI imports
// while it runs: the user scenarios (compiled by tsx as under the bin), the packages it loads on first use. Registered
// first (an `await import` after `register()`, until round 4 session 13), tsx read every module the entry imports,
// and the entry itself, 1.2 MB holding dynamic `import()`s, it rewrote with a fine source map: 1.0 s of CPU a labless
// `run` against 0.46 s now (measured 3 times each).
import './ts-loader.js';
import '../../lib/cli/entry.js';
