// CLI defects of the 2026-12-06 review (docs/cli-defects.md), each through the real main() with the stand-ins: the
// Nomad API stand-in and the stand-in lab (no VMs), a user scenario that counts to three where no lab is needed.
import t, { type Test } from 'tap';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import '../helpers/ts-loader.js';
import { standIn } from '../helpers/stand-in-env.js';

const COUNTS = `import { defineCheck, defineScenario, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck<{ n: number }>({ id: 'counted', title: 'counted', passesWhen: 'n is 3',
  judge: (e) => ({ status: e.n === 3 ? 'passed' : 'failed', message: \`n is \${e.n}\` }) })];
export default defineScenario({ name: 'counts-to-three', summary: 'counts', needsNomad: false, checks: CHECKS,
  async run(ctx) { const n = await ctx.step('count', async () => 3); return judgeAll(CHECKS, { n }); } });
`;

/** A scenario directory outside the repository, as a user's would be. */
function scenarioDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'nrh-cli-defects-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'counts.ts'), COUNTS);
  return dir;
}

async function cli(argv: string[], cwd: string, token?: string) {
  const s = await standIn('restored', { cwd, ...(token ? { token } : {}) });
  const code = await main(argv, s.deps);
  await s.nomad.close();
  return { code, out: s.out.join(''), err: s.err.join('') };
}

/** The one run folder under a reports dir. */
function runDir(reports: string): string {
  const [id] = readdirSync(reports);
  return join(reports, id!);
}

t.test('repro.sh of a run started with the short -c <file> keeps the file (N3)', async (t) => {
  const dir = scenarioDir(t);
  const cwd = t.testdir({ 'tok.yaml': 'lab:\n  cpus: 2\n' });
  const reports = join(cwd, 'reports');
  const r = await cli(
    // a run that did not meet its expectations gets a repro.sh
    [
      'run',
      'counts-to-three',
      '-c',
      'tok.yaml',
      '--scenarios',
      dir,
      '--netns',
      '',
      '--reports-dir',
      reports,
      '--expect',
      'counted=fail',
    ],
    cwd,
  );
  t.equal(r.code, 1, r.err);
  const repro = readFileSync(join(runDir(reports), 'repro.sh'), 'utf8');
  t.match(repro, / -c tok\.yaml /, 'the file follows -c');
  t.notMatch(repro, / -c --/, 'not the next flag');
});
