// The settle wait (lib/steps/job-steps.ts waitForJobSettled) against the Nomad API STAND-IN (test/helpers/fake-nomad),
// not Nomad: it settles on Nomad's state (allocs, evaluations, deployment) read with blocking queries, waits for a
// delayed reschedule inside its budget and names it, ends unsettled on one after it, ends on the quiet period while
// Nomad holds something that does not change, and at its deadline with the last state.
// Note: which of these ended a wait is asserted on its `ending`, not on a wall-clock ceiling (a loaded 2-core host
// stretches every wait); the deadlines are far (WIDE_MS) so that a wait that ended otherwise says so, and the lower
// bounds stay (timers fire late; at most a millisecond early, which each bound leaves room for).
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { createNomad, type Nomad } from '../../lib/nomad/client.js';
import { createHttpTransport } from '../../lib/nomad/transport.js';
import { waitForAllocRunning } from '../../lib/nomad/wait.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { waitForDeploymentDone } from '../../lib/steps/job-steps.js';
import { waitForJobSettled, type SettleInput } from '../../lib/steps/job-settle.js';
import { startFakeNomad, type FakeNomad, type Timeline } from '../helpers/fake-nomad/index.js';
import { WEB_JOB_HCL } from '../helpers/fake-nomad/sample-job.js';

/** The sample job with a reschedule policy that allows one more attempt after `delay` (constant). */
const withReschedule = (delay: string): string =>
  WEB_JOB_HCL.replace(
    /reschedule \{[^}]*\}/,
    `reschedule {\n      attempts       = 1\n      interval       = "1h"\n      delay          = "${delay}"\n      delay_function = "constant"\n      unlimited      = false\n    }`,
  );

/** A running job on the stand-in, then a reboot of its client: what the settle wait starts from. */
async function rebooted(t: { teardown(fn: () => unknown): void }, timeline: Timeline, hcl = WEB_JOB_HCL) {
  const fake = await startFakeNomad({ timeline, clientNodeName: 'nrh-abc-client', stepMs: 50 });
  t.teardown(() => fake.close());
  const nomad = createNomad({ transport: createHttpTransport({ addr: fake.addr }) });
  await nomad.registerJob(await nomad.parseJob(hcl), hcl);
  const before = await waitForAllocRunning(nomad, 'web', { deadline: deadlineIn(5000) });
  // as a run does before its fault: the deployment is over (else the settle would wait for it too)
  await waitForDeploymentDone(nomad, 'web', deadlineIn(5000));
  const since = { index: (await nomad.jobAllocations('web')).index, atMs: Date.now() };
  fake.clientDown();
  fake.clientUp();
  return { fake, nomad, before, since };
}

function settle(nomad: Nomad, watched: string[], since: SettleInput['since'], o: Partial<SettleInput> = {}) {
  const progress: string[] = [];
  const input: SettleInput = {
    nomad,
    jobId: 'web',
    watched,
    since,
    history: { events: {} },
    quietMs: 500,
    confirmMs: 200,
    onProgress: (l) => void progress.push(l),
    ...o,
  };
  return { progress, input };
}

/** A deadline no wait here should reach unless it is the thing tested: its ending says which one ended it. */
const WIDE_MS = 60_000;

const requestsTo = (fake: FakeNomad, path: string) => fake.requests.filter((r) => r.path === path);

/**
 * What the settle says when it reads the allocs just before the stand-in writes the follow-up eval and the alloc's
 * FollowupEvalID, and the evaluations just after (two requests; a loaded host spreads them): the eval pending before
 * the alloc names it, as it can be in Nomad, where the scheduler creates the eval before its plan marks the alloc.
 */
const HELD_BEFORE_NAMED =
  /^every judged alloc's place is decided; Nomad still holds for the job: eval [0-9a-f]{8} \(alloc-failure\) pending until \d\d:\d\d:\d\d: created for delayed rescheduling: waiting while it changes/;
/** The progress lines without that first line, when a read fell between the two writes. */
const pastTheWrites = (progress: string[]) => progress.filter((l, i) => i > 0 || !HELD_BEFORE_NAMED.test(l));

t.test(
  'a failed restore Nomad reschedules 1 s later: waited for, named, then settled on the replacement',
  async (t) => {
    const { fake, nomad, before, since } = await rebooted(t, 'duplicate-ip', withReschedule('1s'));
    const { progress, input } = settle(nomad, [before.ID], since);
    const t0 = performance.now();
    const r = await waitForJobSettled(input, deadlineIn(WIDE_MS));
    const took = performance.now() - t0;
    t.match(r, { settled: true, ending: 'settled', confirmMs: 200 }, 'settled, not ended by the deadline');
    t.match(
      r.reason,
      /^all 1 allocs settled: web\.web\[0\] replaced by [0-9a-f]{8}: running; waited for Nomad's delayed reschedule of web\[0\] \(\d\d:\d\d:\d\d, follow-up eval [0-9a-f]{8}\)$/,
    );
    t.match(
      pastTheWrites(progress),
      [/^web\[0\] failed; Nomad reschedules it at \d\d:\d\d:\d\d \(follow-up eval [0-9a-f]{8}\): waiting$/],
      'the progress names the reschedule once',
    );
    t.equal(r.reschedules.length, 1);
    const followUp = fake.cluster.evals.get(r.reschedules[0]!.evalId)!;
    t.match(
      followUp,
      { Status: 'complete', TriggeredBy: 'alloc-failure', PreviousEval: /\S/ },
      'the stand-in ran the follow-up eval at WaitUntil',
    );
    t.equal(r.reschedules[0]!.atMs, Date.parse(followUp.WaitUntil!));
    const repl = r.allocs.find((a) => a.previousAllocation === before.ID)!;
    t.match(repl, { clientStatus: 'running', desiredStatus: 'run' }, 'the replacement, linked to the failed alloc');
    t.match(
      r.allocs.find((a) => a.id === before.ID),
      {
        clientStatus: 'failed',
        desiredStatus: 'stop',
        desiredDescription: 'alloc was rescheduled because it failed',
        nextAllocation: repl.id,
      },
    );
    t.ok(took >= 900, `waited for WaitUntil, 1 s after the failure (${Math.round(took)} ms)`);
    const evalReads = requestsTo(fake, '/v1/job/web/evaluations');
    t.ok(
      evalReads.some((q) => q.query.index && /^\d+ms$/.test(q.query.wait ?? '')),
      'blocked on the evaluations with index + wait',
    );
    t.ok(
      requestsTo(fake, '/v1/job/web/deployment').some((q) => q.query.index),
      'and on the deployment',
    );
    t.ok(
      requestsTo(fake, '/v1/job/web/allocations').length < 80,
      `no tight polling over ${Math.round(took)} ms (${requestsTo(fake, '/v1/job/web/allocations').length} alloc list reads)`,
    );
  },
);

t.test(
  'a reschedule after the budget: the wait ends unsettled once the rest is decided, naming it, not calling it failed',
  async (t) => {
    const { nomad, before, since } = await rebooted(t, 'duplicate-ip', withReschedule('1h'));
    const { progress, input } = settle(nomad, [before.ID], since);
    const r = await waitForJobSettled(input, deadlineIn(WIDE_MS));
    t.match(r, { settled: false, ending: 'beyond-budget' }, 'ended once the rest was decided, not at the deadline');
    t.match(
      r.reason,
      /^web\[0\] failed; Nomad reschedules it at \d\d:\d\d:\d\d \(follow-up eval [0-9a-f]{8}\), after this wait's budget ends at \d\d:\d\d:\d\d: not waited for$/,
    );
    t.notMatch(r.reason, /waited for Nomad's delayed reschedule/);
    t.match(pastTheWrites(progress), [/not waited for$/]);
  },
);

t.test('restored: settled after the confirmation window on an unchanged view', async (t) => {
  const { nomad, before, since } = await rebooted(t, 'restored');
  const { progress, input } = settle(nomad, [before.ID], since);
  const t0 = performance.now();
  const r = await waitForJobSettled(input, deadlineIn(WIDE_MS));
  const took = performance.now() - t0;
  // `settled`, not `quiet` (the quiet period) nor `deadline`: the confirmation window ended it
  t.match(r, {
    settled: true,
    ending: 'settled',
    reason: `all 1 allocs settled: web.web[0] ${before.ID.slice(0, 8)}: running with tasks started after the disruption`,
  });
  t.ok(took >= 200, `waited out the confirmation window (${Math.round(took)} ms)`);
  t.ok(r.noticedAtMs[before.ID], 'when the restore was first seen');
  t.same(progress, []);
});

t.test(
  'node marked down: the lost alloc is no end; settled on its replacement once the blocked eval placed it',
  async (t) => {
    const { fake, nomad, before, since } = await rebooted(t, 'replaced');
    const { input } = settle(nomad, [before.ID], since);
    const r = await waitForJobSettled(input, deadlineIn(WIDE_MS));
    t.match(r, {
      settled: true,
      ending: 'settled',
      reason: /^all 1 allocs settled: web\.web\[0\] replaced by [0-9a-f]{8}: running$/,
    });
    t.ok(
      [...fake.cluster.evals.values()].some((e) => e.TriggeredBy === 'queued-allocs' && e.Status === 'complete'),
      'the blocked eval ran',
    );
  },
);

t.test(
  'decided, but Nomad holds a blocked eval that never changes: the quiet period ends the wait, naming it',
  async (t) => {
    const { fake, nomad, before, since } = await rebooted(t, 'duplicate-ip');
    fake.cluster.createEval(fake.cluster.jobs.get('web')!, 'queued-allocs', 'blocked', {
      StatusDescription: 'created to place remaining allocations',
    });
    const { progress, input } = settle(nomad, [before.ID], since);
    const t0 = performance.now();
    const r = await waitForJobSettled(input, deadlineIn(WIDE_MS));
    t.match(r, { settled: true, ending: 'quiet' });
    t.match(
      r.reason,
      /^all 1 allocs settled: web\.web\[0\] [0-9a-f]{8}: failed; no reschedule coming; Nomad still holds for the job: eval [0-9a-f]{8} \(queued-allocs\) blocked: created to place remaining allocations; nothing changed for 0\.5s \(settle quiet period\)$/,
    );
    t.match(progress, [
      /^every judged alloc's place is decided; Nomad still holds for the job: eval [0-9a-f]{8} \(queued-allocs\) blocked/,
    ]);
    t.ok(performance.now() - t0 >= 500, 'waited out the quiet period');
  },
);

t.test(
  'never back: the window ends the wait with the last state; the deadline does when there is no window',
  async (t) => {
    const { nomad, before, since } = await rebooted(t, 'never-ready');
    const t0 = performance.now();
    const r = await waitForJobSettled(settle(nomad, [before.ID], since, { windowMs: 800 }).input, deadlineIn(WIDE_MS));
    const took = performance.now() - t0;
    t.match(r, { settled: false, ending: 'deadline' });
    t.match(
      r.reason,
      /web\.web\[0\] [0-9a-f]{8}: client_status=lost desired=stop .*\(stopped by the server; waiting for its replacement\); eval [0-9a-f]{8} \(queued-allocs\) blocked/,
    );
    // the window and the deadline both end as `deadline`: the time says which, and they are 59 s apart
    t.ok(
      took >= 790 && took < WIDE_MS / 2,
      `ended at the 0.8 s window, not the 60 s deadline (${Math.round(took)} ms)`,
    );
    const t1 = performance.now();
    const r2 = await waitForJobSettled(settle(nomad, [before.ID], since).input, deadlineIn(1000));
    t.match(r2, { settled: false, ending: 'deadline', reason: /waiting for its replacement/ });
    const took2 = performance.now() - t1;
    // Note: a wait that ignored its deadline would never return here (never back); the ceiling is only headroom for a
    // loaded host, where returning took over a second past the deadline
    t.ok(took2 >= 700 && took2 < 20_000, `returned at the 1 s deadline (${Math.round(took2)} ms)`);
  },
);
