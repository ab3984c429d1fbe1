// RunContext: steps recorded whatever happens, step deadlines cut from the run budget, facts and artifacts.
import t from 'tap';
import { HarnessError, TimeoutError } from '../../lib/errors.js';
import type { LogEvent } from '../../lib/log/events.js';
import { RunContext } from '../../lib/run/context.js';
import { deadlineIn, remaining, sleep } from '../../lib/time/deadlines.js';

const make = (budgetMs = 60_000) => {
  const log: LogEvent[] = [];
  const ctx = new RunContext({
    runId: 'r1',
    scenario: 's',
    logger: (e) => void log.push(e),
    deadline: deadlineIn(budgetMs),
  });
  return { ctx, log };
};

t.test('a passing step is recorded with its duration and returns the value', async (t) => {
  const { ctx, log } = make();
  const v = await ctx.step('bring up the lab', async () => {
    t.equal(ctx.currentStep, 'bring up the lab', 'currentStep is set while it runs');
    await sleep(20);
    return 42;
  });
  t.equal(v, 42);
  t.equal(ctx.currentStep, undefined);
  t.equal(ctx.steps.length, 1);
  t.match(ctx.steps[0], { name: 'bring up the lab', status: 'passed' });
  t.ok(ctx.steps[0]!.durationMs >= 15 && ctx.steps[0]!.durationMs < 5000, `duration ${ctx.steps[0]!.durationMs}`);
  t.match(log, [
    { kind: 'step', phase: 'start', name: 'bring up the lab' },
    { kind: 'step', phase: 'end', status: 'passed' },
  ]);
});

t.test('a failing step records the error (one-line message, detail with hint) and rethrows it', async (t) => {
  const { ctx, log } = make();
  const boom = new HarnessError('vagrant up failed\nline two of stderr', { hint: 'run reboot-harness doctor' });
  await t.rejects(
    ctx.step('vagrant up', async () => {
      throw boom;
    }),
    boom,
  );
  t.match(ctx.steps[0], {
    name: 'vagrant up',
    status: 'error',
    message: 'vagrant up failed',
    detail: 'vagrant up failed\nline two of stderr\nhint: run reboot-harness doctor',
  });
  t.equal(ctx.currentStep, undefined);
  t.match(log.at(-1), { kind: 'step', phase: 'end', status: 'error', message: /^vagrant up failed \(after \d+ms\)$/ });

  await t.rejects(
    ctx.step('bug', async () => {
      throw new TypeError('x is undefined');
    }),
  );
  t.match(
    ctx.steps[1],
    { status: 'error', message: 'x is undefined', detail: /TypeError: x is undefined\n\s+at / },
    'an unexpected error keeps its stack',
  );
});

t.test('a step deadline is min(step timeout, run budget)', async (t) => {
  const { ctx } = make(60_000);
  await ctx.step(
    'short',
    async (d) => {
      t.ok(remaining(d) <= 50, 'the step timeout applies');
    },
    { timeoutMs: 50 },
  );
  const tight = make(40).ctx;
  await ctx.step('x', async () => {});
  // Note: deadline timers are unref'd (a finished run must not be held open by its budget); keep the loop alive here.
  const keepAlive = setTimeout(() => {}, 5000);
  const err = await tight
    .step(
      'long',
      (d) => new Promise((_, reject) => d.signal.addEventListener('abort', () => reject(d.signal.reason))),
      { timeoutMs: 60_000 },
    )
    .catch((e: unknown) => e);
  clearTimeout(keepAlive);
  t.type(err, TimeoutError, 'the run budget cut the step short');
  t.match(tight.steps[0], { name: 'long', status: 'error' });
});

t.test('skipStep records a skipped step with its reason', async (t) => {
  const { ctx } = make();
  ctx.skipStep('hard reset', 'reboot kind is graceful');
  t.match(ctx.steps, [{ name: 'hard reset', status: 'skipped', message: 'reboot kind is graceful', durationMs: 0 }]);
});

t.test('facts skip empty values; artifacts replace by name', async (t) => {
  const { ctx } = make();
  ctx.fact('nomad.version', 'Nomad v1.9.7');
  ctx.fact('alloc.address.before', '');
  ctx.fact('alloc.address.after', undefined);
  ctx.fact('client.uptime_s', 12);
  t.same(ctx.properties, { 'nomad.version': 'Nomad v1.9.7', 'client.uptime_s': '12' });

  ctx.artifact('alloc-after.json', '{"v":1}');
  ctx.artifact('journal.txt', 'log', 'no-duplicate-ip');
  ctx.artifact('alloc-after.json', '{"v":2}');
  t.same(ctx.pendingArtifacts, [
    { name: 'journal.txt', content: 'log', caseName: 'no-duplicate-ip' },
    { name: 'alloc-after.json', content: '{"v":2}' },
  ]);
});

t.test('evidence collectors and timeline marks are kept in order', async (t) => {
  const { ctx } = make();
  ctx.onEvidence('journal', async () => {});
  ctx.onEvidence('cni state', async () => {});
  t.same(
    ctx.evidenceCollectors.map((c) => c.what),
    ['journal', 'cni state'],
  );
  ctx.mark({ atMs: 1, lane: 'host', label: 'reboot' });
  t.same(ctx.timeline, [{ atMs: 1, lane: 'host', label: 'reboot' }]);
});

t.test(
  "a step's values: kept beside its fixed name, on the record, the log events and the run's properties",
  async (t) => {
    const { ctx, log } = make();
    ctx.fact('job.id', 'set-before');
    await ctx.step('register the job', async () => 1, {
      values: { 'job.id': 'web', 'job.count': 3, skipped: undefined },
    });
    await t.rejects(
      ctx.step('wait until every alloc of the job runs', () => Promise.reject(new Error('no')), {
        values: { 'job.expected_allocs': 2 },
      }),
    );
    await ctx.step('observe', async () => 1);
    t.same(
      ctx.steps.map((s) => [s.name, s.values]),
      [
        ['register the job', { 'job.id': 'web', 'job.count': '3' }],
        ['wait until every alloc of the job runs', { 'job.expected_allocs': '2' }],
        ['observe', undefined],
      ],
    );
    t.ok(
      log
        .filter((e) => e.kind === 'step' && e.name === 'register the job')
        .every((e) => e.kind === 'step' && e.values?.['job.id'] === 'web'),
      'start and end events carry the values',
    );
    t.match(
      ctx.properties,
      { 'job.id': 'set-before', 'job.count': '3', 'job.expected_allocs': '2' },
      'a fact set first stays',
    );
    t.notOk('skipped' in ctx.properties);
  },
);

t.test('steps run side by side are recorded in the order they started, whichever ends first', async (t) => {
  const { ctx } = make();
  await ctx.step('first', async () => undefined);
  await Promise.all([
    ctx.step('slow, started second', () => sleep(40)),
    ctx.step('fast, started third', () => sleep(1)),
    ctx
      .step('failing, started fourth', async () => {
        await sleep(10);
        throw new HarnessError('no');
      })
      .catch(() => undefined),
  ]);
  ctx.skipStep('skipped, fifth', 'not needed');
  t.same(
    ctx.steps.map((s) => s.name),
    ['first', 'slow, started second', 'fast, started third', 'failing, started fourth', 'skipped, fifth'],
  );
  t.same(
    ctx.steps.map((s) => s.status),
    ['passed', 'passed', 'passed', 'error', 'skipped'],
  );
});
