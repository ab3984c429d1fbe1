// One redactor, applied where files are written and on the console stream: a scenario that repeats the ACL token
// everywhere it can (a console line, an evidence file, a fact, a timeline mark, a check's evidence, the failing
// check's message) leaves it in no file the run writes (reports and evidence) and in no console line, with --verbose
// and with --json; the places show the one marker instead.
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import '../helpers/ts-loader.js';
import { REDACTED } from '../../lib/log/redact.js';
import { standIn } from '../helpers/stand-in-env.js';

const TOKEN = 'f00dcafe-6b1d-4c2e-9a7f-5ecre7t0ken1';

const LEAKY = `import { defineCheck, defineScenario, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck<{ token: string }>({ id: 'leaky', title: 'leaky', passesWhen: 'never',
  judge: (e) => ({ status: 'failed', message: 'saw ' + e.token, evidence: ['header X-Nomad-Token: ' + e.token] }) })];
export default defineScenario({ name: 'leaky', summary: 'repeats its token', needsNomad: false, checks: CHECKS,
  async run(ctx, env) {
    const token = env.config.nomad.token;
    await ctx.step('say ' + token, async () => ctx.info('the token is ' + token));
    ctx.artifact('leak.txt', 'NOMAD_TOKEN=' + token + '\\nplain ' + token + '\\n');
    ctx.fact('leak', token);
    ctx.mark({ atMs: Date.now(), lane: 'step', label: 'token ' + token });
    return judgeAll(CHECKS, { token });
  } });
`;

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));

for (const mode of ['--verbose', '--json'] as const) {
  t.test(`a run that repeats its token (${mode}): no file and no console line holds it`, async (t) => {
    const scenarios = mkdtempSync(join(tmpdir(), 'nrh-leaky-'));
    t.teardown(() => rmSync(scenarios, { recursive: true, force: true }));
    writeFileSync(join(scenarios, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(scenarios, 'leaky.ts'), LEAKY);
    const dir = t.testdir({});
    const s = await standIn('restored', { cwd: dir, token: TOKEN });
    t.teardown(() => s.nomad.close());
    const reports = join(dir, 'reports');
    const args = ['run', 'leaky', '--scenarios', scenarios, '--reports-dir', reports, '--netns', '', mode];
    t.equal(await main(args, s.deps), 1, `the leaky check fails the run ${s.err.join('')}`);
    const written = filesUnder(reports);
    t.ok(
      written.some((f) => f.endsWith('leak.txt')),
      `the evidence file is among the ${written.length} files written`,
    );
    const text = (f: string) => readFileSync(f, 'utf8');
    t.same(
      written.filter((f) => text(f).includes(TOKEN)),
      [],
      'no written file holds the token',
    );
    for (const f of written.filter((x) => /leak\.txt|junit\.xml|summary\.json|report\.html$/.test(x)))
      t.ok(text(f).includes(REDACTED), `${f.slice(reports.length)} shows the marker`);
    const lines = [...s.out, ...s.err].join('').split('\n');
    t.same(
      lines.filter((l) => l.includes(TOKEN)),
      [],
      `none of ${lines.length} console lines holds the token`,
    );
    t.ok(
      lines.some((l) => l.includes(REDACTED)),
      'the console shows the marker',
    );
    t.notOk(
      [...lines, ...written.map(text)].some((x) => x.includes('***')),
      'one marker: no other redaction mark anywhere',
    );
  });
}
