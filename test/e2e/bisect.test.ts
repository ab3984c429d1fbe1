// e2e tier: `bisect` over real builds the harness makes from a real hashicorp/nomad tree (NOMAD_SOURCE), on one warm
// lab of real VMs: between v2.0.4 and v2.0.5 the check task-dirs flips from failed to passed (GH-28345), and the
// bisect must name the commit that added that fix's changelog entry on the release branch, in the fix direction,
// with full confidence, each step's tries linking a run report, and leave no VM behind. About 60 to 90 minutes
// under emulation on 2 cores (each step builds its commit, 3-5 minutes with a warm Go cache, and runs a warm rerun).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../helpers/cli-child.js';
import { NETNS } from '../helpers/real-nomad.js';
import { domainsMatching, vmSkipReason } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';

t.setTimeout(150 * 60_000);

const source = process.env['NOMAD_SOURCE'];
const good = process.env['NOMAD_BISECT_GOOD'] ?? 'v2.0.4';
const bad = process.env['NOMAD_BISECT_BAD'] ?? 'v2.0.5';
const skip = !source
  ? 'set NOMAD_SOURCE to a hashicorp/nomad clone (or bare git dir) to bisect across its commits'
  : (vmSkipReason() ?? false);

const git = (...args: string[]) =>
  execFileSync('git', ['--git-dir', gitDir(source!), ...args])
    .toString()
    .trim();

function gitDir(dir: string): string {
  return existsSync(join(dir, '.git')) ? join(dir, '.git') : dir;
}

t.test(
  `bisect bridge-exec-reboot --good ${good} --bad ${bad} --check task-dirs: the GH-28345 fix`,
  { skip },
  async (t) => {
    // The truth from Nomad's history: the commit between the refs that added the fix's changelog entry.
    const fix = git('log', '--format=%H', `${good}..${bad}`, '--diff-filter=A', '--', '.changelog/28345.txt');
    t.match(fix, /^[0-9a-f]{40}$/, `one commit adds .changelog/28345.txt between ${good} and ${bad}`);
    const work = mkdtempSync(join(tmpdir(), 'nrh-e2e-bisect-'));
    const lab = ['--netns', NETNS, '--work-dir', join(work, 'labs')];
    // E2E_REPORTS keeps the bisect's folder (findings, bench/bisect.ts); otherwise it goes with the work dir
    const reports = process.env['E2E_REPORTS'] ?? join(work, 'reports');
    // Note: a safety net for a test that threw; the checked teardown is at the end of the test, where it can assert
    t.teardown(async () => {
      if (existsSync(join(work, 'labs'))) await runCli(t, ['destroy', '--warm', ...lab]);
      rmSync(work, { recursive: true, force: true });
    });
    const r = await runCli(
      t,
      [
        'bisect',
        'bridge-exec-reboot',
        '--source',
        `git:${source}`,
        '--good',
        good,
        '--bad',
        bad,
        '--check',
        'task-dirs',
        '--reports-dir',
        reports,
        ...lab,
      ],
      undefined,
      { HARNESS_WARM: '1' },
    );
    t.equal(r.code, 0, 'exit 0: found with enough confidence');
    const folder = readdirSync(reports).find((f) => f.startsWith('bisect-'));
    t.ok(folder, 'the bisect folder');
    const doc = JSON.parse(readFileSync(join(reports, folder!, 'bisect.json'), 'utf8'));
    t.equal(doc.status, 'found');
    t.equal(doc.direction, 'fix', 'fails on the older ref, passes on the newer');
    t.equal(doc.culprit.sha, fix, 'the commit that brought the fix to the release branch');
    t.same(doc.culprit.changelog, ['GH-28345']);
    t.equal(doc.confidence, 1, 'task-dirs fails every time on the unfixed builds (p = 1)');
    t.equal(doc.reproduction.fails, doc.reproduction.tries, 'the failing endpoint failed every try');
    for (const s of doc.steps)
      for (const x of s.tries)
        t.ok(existsSync(join(reports, folder!, x.reportDir, 'report.html')), `${s.commit} try report`);
    // A build between tags must be the binary upstream would make: `nomad alloc exec` works on every try's build as
    // on the tags' (a build without client/structs' msgpack code decoded the exec request with no alloc id).
    for (const s of doc.steps)
      for (const x of s.tries) {
        const summary = JSON.parse(readFileSync(join(reports, folder!, x.reportDir, 'summary.json'), 'utf8'));
        const exec = summary.runs.flatMap((r: { verdicts: { id: string; status: string; message?: string }[] }) =>
          r.verdicts.filter((v) => v.id === 'alloc-exec'),
        );
        t.same(
          exec.map((v: { status: string }) => v.status),
          ['passed'],
          `${s.commit.slice(0, 10)} (${s.build?.version}): alloc-exec passed${exec[0]?.message ? `: ${exec[0].message}` : ''}`,
        );
      }
    t.ok(
      doc.steps.every((s: { decision: string }) => s.decision !== 'skip'),
      'no step skipped',
    );
    validateJUnit(t, join(reports, folder!, 'junit.xml'));
    t.match(r.stdout, new RegExp(`first fixed commit: ${fix}`));
    // Every try after the first reverted the one warm lab (VMs brought up once per bisect, not once per step).
    const created = doc.steps.flatMap((s: { tries: { phases?: { name: string }[] }[] }) => s.tries).length;
    t.ok(created > 2, `${created} tries`);
  },
);
