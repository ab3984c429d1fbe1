// e2e tier: the fault kinds that cut, slow or kill part of one client without rebooting it (link-flap, link-loss,
// executor-kill), against REAL Nomad builds (NOMAD_BINARIES) on real VMs: one matrix bridge-exec-reboot x builds x
// those kinds, one cell at a time, each build's later cells on its warm lab. Each cell's full verdict map is held to
// expectedVerdicts (the kinds' own outcome rules: no cut reaches heartbeat_grace, so nothing is lost or replaced; an
// executor killed under its task makes the client restart the task in the same alloc), and the sentinels must pass:
// no agent crash, no forbidden log line, and fault-exercised proving the fault ran (the marks each kind leaves, boot id
// unchanged). NEW_FAULTS_KINDS picks kinds. Skips visibly without builds or the lab.
import t from 'tap';
import { domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import {
  assertVerdicts,
  buildsFromEnv,
  e2eSkipReason,
  expectedVerdicts,
  kindsFromEnv,
  reportsDirFor,
  runCli,
  SHIPPED_JOB_SKIP_WHY,
  verdictsOf,
  versionParts,
  warmMatrix,
  warmWorkDir,
} from '../helpers/real-nomad.js';
import { checkIds } from '../helpers/check-ids.js';

t.setTimeout(150 * 60_000);
const builds = buildsFromEnv();
const skip = e2eSkipReason(builds);
const KINDS = kindsFromEnv(['link-flap', 'link-loss', 'executor-kill'] as const, 'NEW_FAULTS_KINDS');
const IDS = checkIds('bridge-exec-reboot');
/** The mark each kind leaves when it has done its work (lib/faults/<kind>.ts `proves`). */
const MARK: Record<(typeof KINDS)[number], string> = {
  'link-flap': 'link flapped',
  'link-loss': 'link loss removed',
  'executor-kill': 'nomad executor SIGKILLed',
};
const atLeast110 = (v: string) => {
  const [a = 0, b = 0] = versionParts(v);
  return a > 1 || (a === 1 && b >= 10);
};

type Run = {
  outcome: string;
  properties: Record<string, string>;
  verdicts: never[];
};

t.test(
  `${KINDS.join(', ')} on Nomad ${builds.map((b) => b.version).join(', ') || '(none)'}: one warm lab per build`,
  { skip: skip ?? false, timeout: 140 * 60_000 },
  async (t) => {
    const dir = reportsDirFor(t);
    const { lab, warmLabs } = warmWorkDir(t, 'nrh-e2e-newfaults-');
    const { r, junit, runs, cell } = await warmMatrix<Run>(t, {
      dir,
      lab,
      builds,
      kinds: KINDS,
      name: 'new-faults',
      defaults: [
        '  reboot: { flap_count: 3, flap_down_for: 20s, flap_up_for: 20s, loss_percent: 30, loss_delay_ms: 200, loss_for: 60s }',
        '  reports: { artifacts: always }',
      ],
    });
    t.equal(r.code, 0, 'exit 0: every cell met what its kind expects');
    validateJUnit(t, junit);
    t.equal(runs().length, builds.length * KINDS.length, 'one run per cell');
    const table: string[] = [];
    for (const b of builds) {
      for (const kind of KINDS) {
        const at = `${b.version} ${kind}`;
        const run = cell(b, kind);
        t.ok(run, `${at}: a run`);
        if (!run) continue;
        const v = verdictsOf(run as never);
        assertVerdicts(t, at, v, expectedVerdicts(b, kind, IDS, SHIPPED_JOB_SKIP_WHY));
        for (const id of ['no-agent-crash', 'agent-log-invariants', 'fault-exercised'])
          t.equal(v.get(id)?.status, 'passed', `${at}: ${id} passed: ${v.get(id)?.message}`);
        t.match(
          v.get('fault-exercised')?.evidence.join('\n') ?? '',
          new RegExp(`${kind} on client: same boot id seen[\\s\\S]*${kind} on client: mark "${MARK[kind]}" seen`),
          `${at}: fault-exercised quotes the unchanged boot id and the fault's own mark`,
        );
        if (kind === 'executor-kill')
          t.match(
            v.get('alloc-restored')?.evidence.join('\n') ?? '',
            // GH-25453 (v1.10.0): the task of a killed executor ends with exit code -1, never 0
            atLeast110(b.version)
              ? /was ended by it \(exit -1, [^)]*\); restarted by the restart policy/
              : /was ended by it/,
            `${at}: the instance the killed executor ended is quoted with its exit code and its restart`,
          );
        t.match(v.get('client-rebooted')?.message ?? '', /boot_id unchanged/, `${at}: the host did not reboot`);
        const restarted = v.get('task-restarted');
        table.push(
          `${at}: ${run.outcome}; alloc-restored: ${v.get('alloc-restored')?.message}; task-restarted: ${restarted?.status} ${restarted?.message}`,
        );
        t.equal(run.outcome, 'passed', `${at}: passed`);
      }
    }
    t.comment(table.join('\n'));
    for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
    const kept = warmLabs();
    t.equal((await runCli(t, ['destroy', '--warm', ...lab])).code, 0, 'destroy --warm');
    for (const w of kept) t.same(domainsMatching(w), [], `no domain of ${w} left after destroy --warm`);
  },
);
