// e2e tier (issue 15): every fault kind against REAL Nomad builds on real VMs, as one matrix `bridge-exec-reboot` ×
// nomad (each build given) × reboot [panic, power-off, agent-kill, partition], one cell at a time (two labs at once
// on a 2-core emulated host can stretch a reboot past heartbeat_grace). Each build's first cell brings its lab up cold
// and snapshots it; its other cells revert to that warm lab. heartbeat_grace is the default 5m, the partition 6m:
// - panic, power-off: the host goes down within heartbeat_grace; before 1.9.4 the restore fails with the duplicate-IP
//   error, from 1.9.4 on the alloc is restored and the checks that fail are exactly the ones Nomad's CHANGELOG
//   predicts (changelogFailures: task-dirs before 2.0.5);
// - agent-kill: no reboot, the tasks keep running and the agent reattaches; the checks that fail are exactly the ones
//   the CHANGELOG predicts (task-env before 1.11.0, alloc-exec before 2.0.0, agent-resources before 2.0.1);
// - partition longer than heartbeat_grace: the node is marked down, the alloc lost and replaced once the client is
//   back, which the verdict must call expected; nothing else fails.
// One nomad entry crosses every kind, so the predictions cannot be expectations in the matrix: each cell's full verdict
// map (every check's status: passed, failed or skipped, each with why) is compared to expectedVerdicts instead, and the
// exit code is 1 when any cell is predicted to fail. Where Nomad varies (changelogMayFail after an agent kill, 1.9.3's
// no-leaks after a failed restore) the check must still be judged, a failure must quote the known variation, and
// which outcome was seen is printed.
// An agent-kill on a build with GH-26699's fix is placed in the client's 60 s state-snapshot period
// (test/helpers/snapshot-race.ts) and held to what that place predicts: killed before a snapshot held the network
// status, real Nomad fails the restore ("network already configured but not found in state").
// The event stream of each run is recorded and checked for the transitions real Nomad sends.
// Builds come from NOMAD_BINARIES / NOMAD_BINARY; without them the test skips visibly.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import {
  buildsFromEnv,
  warmWorkDir,
  assertVerdicts,
  changelogFailures,
  expectedVerdicts,
  restoreFails,
  runCli,
  verdictsOf,
  SHIPPED_JOB_SKIP_WHY,
  e2eSkipReason,
  warmMatrix,
} from '../helpers/real-nomad.js';
import { checkIds } from '../helpers/check-ids.js';
import { join } from 'node:path';
import { holdRace } from '../helpers/snapshot-race.js';

t.setTimeout(180 * 60_000);
const builds = buildsFromEnv();
const skip = e2eSkipReason(builds);
const KINDS = ['panic', 'power-off', 'agent-kill', 'partition'] as const;
const PARTITION = '6m';
const DUPLICATE = /has been allocated to [0-9a-f-]+, duplicate allocation is not allowed/;
const REBOOT_CHECKS = checkIds('bridge-exec-reboot');

type Frame = {
  Events: { Topic: string; Type: string; Payload: Record<string, { Status?: string; ClientStatus?: string }> }[];
};
type Run = {
  runId: string;
  outcome: string;
  properties: Record<string, string>;
  verdicts: never[];
  artifacts: { name: string; path: string }[];
  steps: { name: string; durationMs: number }[];
};

t.test(
  `${KINDS.join(', ')} on Nomad ${builds.map((b) => b.version).join(', ') || '(none)'}: a matrix, one warm lab per build`,
  { skip: skip ?? false, timeout: 170 * 60_000 },
  async (t) => {
    const dir = t.testdir({});
    const { lab, warmLabs } = warmWorkDir(t, 'nrh-e2e-faults-');
    const {
      r,
      junit,
      runs: allRuns,
      cell,
    } = await warmMatrix<Run>(t, {
      dir,
      lab,
      builds,
      kinds: KINDS,
      name: 'faults',
      defaults: [`  reboot: { partition_for: ${PARTITION} }`, '  reports: { artifacts: always }'],
    });
    const anyFailure = builds.some((b) => KINDS.some((k) => restoreFails(b, k) || changelogFailures(b, k).length > 0));
    validateJUnit(t, junit);
    const runs = allRuns();
    t.equal(runs.length, builds.length * KINDS.length, 'one run per cell');
    const races: string[] = [];
    let lostRace = false;

    for (const b of builds) {
      for (const kind of KINDS) {
        const run = cell(b, kind);
        t.ok(run, `${b.version} ${kind}: a run`);
        if (!run) continue;
        const v = verdictsOf(run);
        const at = `${b.version} ${kind}`;
        const raced =
          kind === 'agent-kill' &&
          b.restoresNetworkStatus &&
          holdRace(t, at, run, join(dir, 'reports'), v.get('alloc-restored'), races);
        if (raced) {
          lostRace = true;
          continue;
        }
        const want = expectedVerdicts(b, kind, REBOOT_CHECKS, SHIPPED_JOB_SKIP_WHY);
        const varied = assertVerdicts(t, at, v, want);
        const failing = [...want].filter(([id, w]) =>
          'status' in w ? w.status === 'failed' : v.get(id)?.status === 'failed',
        );
        t.equal(
          run.outcome,
          failing.length ? 'failed' : 'passed',
          `${at}: ${failing.length ? `failed on ${failing.map(([id]) => id).join(', ')}` : 'every check met its expectation'}${varied.length ? ` (varying: ${varied.join(', ')})` : ''}`,
        );
        if (kind === 'panic' || kind === 'power-off') {
          t.equal(v.get('client-rebooted')?.label, 'passed', `${at}: the client rebooted (a new boot_id)`);
          t.not(
            run.properties['client.boot_id.before'],
            run.properties['client.boot_id.after'],
            `${at}: boot_id changed`,
          );
          if (b.beforeTmpfsFix) {
            t.equal(v.get('no-duplicate-ip')?.label, 'failed', `${at}: the restore failed with the duplicate-IP error`);
            t.match(
              v.get('no-duplicate-ip')?.evidence.join('\n') ?? '',
              DUPLICATE,
              `${at}: the evidence quotes the real host-local error`,
            );
            t.equal(v.get('alloc-restored')?.label, 'failed', `${at}: the alloc was not restored`);
          } else {
            t.equal(v.get('alloc-restored')?.label, 'passed', `${at}: restored in place`);
          }
        } else if (kind === 'agent-kill') {
          t.match(
            v.get('client-rebooted')?.message,
            /boot_id unchanged .* the agent was restarted by systemd \(pid \d+ -> \d+\)/,
            `${at}: no reboot, a new agent`,
          );
          t.match(
            v.get('task-restarted')?.message,
            /kept running through agent-kill/,
            `${at}: the task was not restarted`,
          );
        } else {
          t.match(
            v.get('alloc-restored')?.message,
            /^replaced, as expected \(partition of 360s > heartbeat_grace 300s\)/,
            `${at}: replaced, and the verdict says it was expected`,
          );
        }
        const events = readFileSync(run.artifacts.find((a) => a.name === 'events.ndjson')!.path, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Frame);
        const all = events.flatMap((f) => f.Events ?? []);
        t.ok(
          all.some((e) => e.Topic === 'Allocation' && e.Type === 'PlanResult'),
          `${at}: the placement arrived as a PlanResult`,
        );
        t.ok(
          all.some(
            (e) =>
              e.Topic === 'Allocation' &&
              e.Type === 'AllocationUpdated' &&
              e.Payload['Allocation']?.ClientStatus === 'running',
          ),
          `${at}: the client reported it running`,
        );
        if (kind === 'partition') {
          t.ok(
            all.some((e) => e.Topic === 'Node' && e.Type === 'NodeStreamEvent' && e.Payload['Node']?.Status === 'down'),
            `${at}: the node went down (NodeStreamEvent)`,
          );
          t.ok(
            all.some((e) => e.Topic === 'Allocation' && e.Payload['Allocation']?.ClientStatus === 'lost'),
            `${at}: the alloc was marked lost`,
          );
        }
      }
      const warm = KINDS.map((k) => cell(b, k)?.properties['lab.warm'] ?? '');
      t.equal(
        warm.filter((w) => w === 'yes').length,
        KINDS.length - 1,
        `${b.version}: one cold cell, the others warm (${warm.join('; ')})`,
      );
    }
    t.equal(
      r.code,
      anyFailure || lostRace ? 1 : 0,
      anyFailure || lostRace
        ? "exit 1: a cell fails as Nomad's history predicts (the duplicate-IP error before 1.9.4, the CHANGELOG's failures, or an agent-kill before the client's state snapshot)"
        : 'exit 0: every cell met what its kind expects',
    );
    if (races.length) t.comment(races.join('\n'));
    for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
    const kept = warmLabs();
    t.equal(kept.length, builds.length, `one warm lab per build kept (${kept.join(', ')})`);
    t.equal((await runCli(t, ['destroy', '--warm', ...lab])).code, 0, 'destroy --warm');
    for (const w of kept) t.same(domainsMatching(w), [], `no domain of ${w} left after destroy --warm`);
  },
);
