// The CLI's fourteenth adversarial pass (docs/cli-defects.md, rows Q150 on), through the real CLI or main() with the
// stand-ins: a user scenario that turns a failed run's exit code to 0 after the command, a matrix file's own problems
// told with its builds, its fault schedule and its axes.reboot beside a schedule, a known-issue file that is not UTF-8.
import t from 'tap';
import '../helpers/ts-loader.js';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from '../helpers/cli-child.js';

t.setTimeout(3 * 60_000);

/** A labless user scenario whose one check fails, with `body` run before run() returns its results. */
function failingScenario(dir: string, name: string, body: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(
    join(dir, `${name}.ts`),
    `import { defineScenario, defineCheck, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck({ id: 'c', title: 'c', passesWhen: 'always', judge: () => ({ status: 'failed', message: 'bad' }) })];
export default defineScenario({ name: '${name}', summary: 'no lab', needsNomad: false, roles: ['client'], checks: CHECKS,
  async run() { ${body}; return judgeAll(CHECKS, {}); } });
`,
  );
}

t.test(
  "a user scenario's timer that sets process.exitCode = 0 or calls process.exit(0) after the command does not turn a FAIL into exit 0 (Q150)",
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    failingScenario(usc, 'codezero', 'setTimeout(() => { process.exitCode = 0; }, 300)');
    failingScenario(usc, 'exitzero', 'setTimeout(() => process.exit(0), 300)');
    failingScenario(usc, 'onexit', "process.on('exit', () => { process.exitCode = 0; })");
    for (const name of ['codezero', 'exitzero', 'onexit']) {
      const r = spawnSync(
        process.execPath,
        [CLI, 'run', name, '--scenarios', usc, '--reports-dir', join(dir, 'reports'), '--netns', ''],
        { cwd: dir, env: { ...process.env, HARNESS_WORK_DIR: join(dir, 'work'), CI: 'true' }, encoding: 'utf8' },
      );
      t.match(r.stdout, new RegExp(`FAIL ${name}`), `${name}: the verdict is FAIL`);
      t.equal(r.status, 1, `${name}: exit 1, the verdict's code (${r.stderr.slice(-300)})`);
    }
  },
);
