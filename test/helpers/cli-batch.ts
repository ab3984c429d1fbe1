// Runs the real CLI's main() with the real effects (lib/cli/real-deps.ts) for several command lines in ONE process,
// each in its own folder with its own variables, and prints one JSON line per command line: a start-up per line cost
// the input-slot test about 1.3 s of CPU each under tsx. Used by test/integration/input-slots.test.ts, which spawns it
// with a deadline: a read that never ends holds this process, and the test sends SIGTERM and fails.
// Usage: node [--import=tsx] cli-batch.(ts|js) <cases.json>; a case is { name, cwd, args, env }.
import { readFileSync } from 'node:fs';
import { main } from '../../lib/cli/main.js';
import { realDeps } from '../../lib/cli/real-deps.js';

export interface BatchCase {
  name: string;
  cwd: string;
  args: string[];
  env: Record<string, string>;
}

export interface BatchResult {
  name: string;
  code: number;
  stdout: string;
  stderr: string;
  /** how long the line took */
  ms: number;
  /** the process's peak resident memory so far, MiB */
  maxRssMb: number;
}

const cases = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as BatchCase[];
for (const c of cases) {
  // Note: the cwd and variables of the process too: the build layer and doctor read them, not only CliDeps
  process.chdir(c.cwd);
  const saved = Object.fromEntries(Object.keys(c.env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, c.env);
  let stdout = '';
  let stderr = '';
  const started = performance.now();
  const code = await main(c.args, {
    ...realDeps(),
    env: process.env,
    cwd: c.cwd,
    out: (s) => {
      stdout += s;
    },
    err: (s) => {
      stderr += s;
    },
    isTTY: false,
  });
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  const ms = Math.round(performance.now() - started);
  const result: BatchResult = {
    name: c.name,
    code,
    stdout,
    stderr,
    ms,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  // interrupted: the rest would only be held by what held this one
  if (code === 130) break;
}
