// e2e tier: a restored alloc judged whole, on REAL Nomad builds and real VMs. One matrix bridge-exec-reboot x the given
// builds x reboot [graceful, agent-kill] with examples/jobs/whole-alloc.nomad.hcl (two tasks, a template into
// secrets/, two ports, Nomad services with checks), one cell at a time, each build's second cell on its warm lab.
// Each cell is held, check by check, to what Nomad's CHANGELOG says for its build and fault (expectedVerdicts): those
// checks fail with their evidence, what the CHANGELOG makes possible (changelogMayFail) is judged either way with the
// outcome printed, and every other check passes (none is skipped: the job has services, and both kinds restore in
// place). WHOLE_ALLOC_KINDS=agent-kill runs only that kind (e.g. the task-env
// pair 1.10.5 / 1.11.3, GH-26699). Skips visibly without builds or the lab. An agent-kill on a build with GH-26699's
// fix is placed in the client's 60 s state-snapshot period (test/helpers/snapshot-race.ts) and held to what that
// place predicts: killed before a snapshot held the network status, real Nomad fails the restore.
import t from 'tap';
import { fileURLToPath } from 'node:url';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import {
  buildsFromEnv,
  warmWorkDir,
  assertVerdicts,
  changelogFailures,
  changelogMayFail,
  expectedVerdicts,
  kindsFromEnv,
  reportsDirFor,
  verdictsOf,
  warmMatrix,
} from '../helpers/real-nomad.js';
import { CHECKS } from '../../scenarios/bridge-exec-reboot.js';
import { join } from 'node:path';
import { holdRace } from '../helpers/snapshot-race.js';

t.setTimeout(150 * 60_000);
const builds = buildsFromEnv().filter((b) => !b.beforeTmpfsFix);
const skip =
  builds.length === 0 ? 'no Nomad build from 1.9.4 on given: set NOMAD_BINARIES=/path/a,/path/b' : vmSkipReason();
const KINDS = kindsFromEnv(['graceful', 'agent-kill'] as const, 'WHOLE_ALLOC_KINDS');
const JOB = fileURLToPath(new URL('../../examples/jobs/whole-alloc.nomad.hcl', import.meta.url));
/** What a failing check's evidence must show, per check (the bug as the client host or the API shows it). */
const EVIDENCE: Record<string, RegExp> = {
  'task-dirs': /secrets\/ ext4 of \//,
  'task-env': /NOMAD_ALLOC_(IP|ADDR)_/,
  'alloc-exec': /exit|plugin is shut down|failed/,
  'agent-resources': /fds \d+ -> \d+/,
};

const IDS = CHECKS.map((c) => c.id);

type Run = { runId: string; outcome: string; properties: Record<string, string>; verdicts: never[] };

t.test(
  `whole-alloc checks on Nomad ${builds.map((b) => b.version).join(', ') || '(none)'} x ${KINDS.join(', ')}`,
  { skip: skip ?? false, timeout: 140 * 60_000 },
  async (t) => {
    const dir = reportsDirFor(t);
    const { lab } = warmWorkDir(t, 'nrh-e2e-whole-');
    const { r, junit, cell } = await warmMatrix<Run>(t, {
      dir,
      lab,
      builds,
      kinds: KINDS,
      name: 'whole',
      defaults: [
        `  job: { file: ${JSON.stringify(JOB)} }`,
        '  lab: { memory_mb: 1024 }',
        '  reports: { artifacts: always }',
      ],
    });
    const anyFailure = builds.some((b) => KINDS.some((k) => changelogFailures(b, k).length > 0));
    t.equal(r.code, anyFailure ? 1 : 0, anyFailure ? 'exit 1: the changelog predicts failures' : 'exit 0');
    validateJUnit(t, junit);
    const table: string[] = [];
    for (const b of builds) {
      for (const kind of KINDS) {
        const run = cell(b, kind);
        const at = `${b.version} ${kind}`;
        t.ok(run, `${at}: a run`);
        if (!run) continue;
        const v = verdictsOf(run as never);
        const raced =
          kind === 'agent-kill' &&
          b.restoresNetworkStatus &&
          holdRace(t, at, run, join(dir, 'reports'), v.get('alloc-restored'), table);
        if (raced) continue;
        const expected = changelogFailures(b, kind);
        const may = changelogMayFail(b, kind);
        const failed = CHECKS.map((c) => c.id).filter((id) => v.get(id)?.status === 'failed');
        table.push(`${at}: failed [${failed.join(', ')}], changelog [${expected.join(', ')}], may [${may.join(', ')}]`);
        assertVerdicts(t, at, v, expectedVerdicts(b, kind, IDS, {}));
        for (const id of expected)
          t.match(v.get(id)?.evidence.join('\n') ?? '', EVIDENCE[id] ?? /./, `${at}: ${id}'s evidence shows it`);
        t.equal(run.outcome, failed.length ? 'failed' : 'passed', `${at}: the run's outcome follows its verdicts`);
      }
      const warm = KINDS.map((k) => cell(b, k)?.properties['lab.warm'] ?? '');
      t.equal(
        warm.filter((w) => w === 'yes').length,
        KINDS.length - 1,
        `${b.version}: one cold cell${KINDS.length > 1 ? ', the other warm' : ''} (${warm.join('; ')})`,
      );
    }
    t.comment(table.join('\n'));
    for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
  },
);
