// Loaded first by every test process of the compiled tiers (`--node-arg=--import=…/bare-children.js` in package.json's
// test:* scripts): the processes a test starts (the CLI, stand-in scripts, tsx) start without tap's process-info hooks.
// tap starts each test process with @tapjs/processinfo, which puts its `--import` into NODE_OPTIONS and rewrites every
// spawn's environment to carry it, so each Node child registered a module loader on a thread of its own that every
// module it imports crosses to, and wrote a process-info file at exit: the compiled CLI took 1.4 s of CPU for `--help`
// against 0.45 s without it. Those files feed only coverage and `tap --changed`, which the tiers do not use
// (package.json: "disable-coverage"); the test process itself keeps the hooks tap gave it.

/** What process-on-spawn (processinfo's spawn hook) keeps on the global object: the hooks run on every spawn. */
interface SpawnHookState {
  listeners: unknown[];
}

const state = (globalThis as Record<symbol, SpawnHookState | undefined>)[Symbol.for('process-on-spawn@*:singletonId')];
if (state) state.listeners.length = 0;

/** NODE_OPTIONS without processinfo's `--import` (tap writes it quoted: `"--import=file:///…/import.mjs"`). */
export function withoutProcessInfo(options: string): string {
  return options
    .replace(/"?--(?:import|loader|experimental-loader)[= ]"?[^\s"]*@tapjs\/processinfo\/[^\s"]*"?/g, '')
    .trim();
}

const options = withoutProcessInfo(process.env['NODE_OPTIONS'] ?? '');
if (options) process.env['NODE_OPTIONS'] = options;
else delete process.env['NODE_OPTIONS'];
