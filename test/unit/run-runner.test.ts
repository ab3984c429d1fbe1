// runScenario with tiny fake scenarios: outcomes, cleanup on every path, --keep, artifacts policy and redaction.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { CheckResult } from '../../lib/model/check.js';
import { DEFAULTS, type HarnessConfig } from '../../lib/config/schema.js';
import { CommandError } from '../../lib/errors.js';
import type { LogEvent } from '../../lib/log/events.js';
import type { RunContext } from '../../lib/run/context.js';
import { sleep } from '../../lib/time/deadlines.js';
import { runScenario } from '../../lib/run/runner.js';
import type { Scenario, ScenarioEnv } from '../../lib/run/scenario.js';

const TOKEN = 'a1b2c3d4-5e6f-4a0b-9c8d-0123456789ab';

const check = (id: string, status: CheckResult['status']): CheckResult => ({
  id,
  title: id,
  status,
  message: `${id} ${status}`,
  evidence: [],
});

function config(dir: string, over: (c: HarnessConfig) => void = () => {}): HarnessConfig {
  const c = structuredClone(DEFAULTS);
  c.reports.dir = dir;
  over(c);
  return c;
}

const env = (c: HarnessConfig): ScenarioEnv => ({
  config: c,
  upLab: () => Promise.reject(new Error('not used')),
  provisionNomad: () => Promise.reject(new Error('not used')),
  connectNomad: () => Promise.reject(new Error('not used')),
});

/** A scenario that registers two cleanups, records a step and an artifact, then does `body`. */
function scenario(body: (ctx: RunContext) => Promise<CheckResult[]>, torn: string[]): Scenario {
  return {
    name: 'fake',
    summary: 'a fake scenario',
    needsNomad: false,
    checks: [{ id: 'a', title: 'A', passesWhen: 'always', judge: () => ({ status: 'passed', message: 'always' }) }],
    async run(ctx) {
      ctx.cleanup.defer('destroy lab', async () => void torn.push('destroy lab'));
      await ctx.step('bring up', async () => {
        ctx.cleanup.defer('close tunnel', async () => void torn.push('close tunnel'));
      });
      ctx.artifact('alloc.json', `{"SecretID":"x","token":"${TOKEN}"}`);
      ctx.artifact('client.log', `NOMAD_TOKEN=${TOKEN} started`, 'a');
      return body(ctx);
    },
  };
}

async function run(
  t: Test,
  body: (ctx: RunContext) => Promise<CheckResult[]>,
  over?: (c: HarnessConfig) => void,
  signal = new AbortController().signal,
) {
  const dir = t.testdir();
  const c = config(dir, over);
  const torn: string[] = [];
  const log: LogEvent[] = [];
  const artifactDir = join(dir, 'r1');
  const res = await runScenario({
    runId: 'r1',
    scenario: scenario(body, torn),
    env: env(c),
    config: c,
    logger: (e) => void log.push(e),
    signal,
    artifactDir,
  });
  const files = existsSync(artifactDir) ? readdirSync(artifactDir).sort() : [];
  return { ...res, torn, log, artifactDir, files };
}

t.test('passed: checks met, cleanup ran LIFO, facts recorded, no artifacts on-failure', async (t) => {
  const r = await run(t, async () => [check('a', 'passed')]);
  t.equal(r.record.outcome, 'passed');
  t.same(r.torn, ['close tunnel', 'destroy lab']);
  t.same(r.kept, []);
  t.match(r.record, {
    runId: 'r1',
    scenario: 'fake',
    suiteName: 'fake',
    verdicts: [{ id: 'a', label: 'passed', met: true }],
    steps: [{ name: 'bring up', status: 'passed' }],
  });
  t.equal(r.record.error, undefined);
  t.match(r.record.properties, {
    'run.id': 'r1',
    scenario: 'fake',
    'reboot.kind': 'graceful',
    'nomad.heartbeat_grace': '5m',
  });
  t.same(r.files, [], 'on-failure: nothing written for a pass');
  t.same(r.record.artifacts, []);
});

t.test('failed: a check did not meet its expectation; cleanup ran; artifacts written and redacted', async (t) => {
  const r = await run(
    t,
    async () => [check('a', 'failed')],
    (c) => (c.nomad.token = TOKEN),
  );
  t.equal(r.record.outcome, 'failed');
  t.same(r.torn, ['close tunnel', 'destroy lab']);
  t.same(r.files, ['alloc.json', 'client.log']);
  for (const f of r.files) {
    const text = readFileSync(join(r.artifactDir, f), 'utf8');
    t.notMatch(text, TOKEN, `${f} has no token`);
    t.match(text, '[REDACTED]', `${f} says what was removed`);
  }
  t.match(r.record.artifacts, [
    { name: 'alloc.json', path: join(r.artifactDir, 'alloc.json') },
    { name: 'client.log', caseName: 'a' },
  ]);
});

t.test('an expected failure passes the run', async (t) => {
  const r = await run(
    t,
    async () => [check('a', 'failed')],
    (c) => (c.expect.perCheck = { a: 'fail' }),
  );
  t.equal(r.record.outcome, 'passed');
  t.match(r.record.verdicts, [{ id: 'a', label: 'expected failure', met: true }]);
  t.same(r.files, []);
});

t.test('error: a step throws; the error names the step; cleanup still ran', async (t) => {
  const r = await run(t, async (ctx) => {
    await ctx.step('vagrant up', async () => {
      throw new CommandError('vagrant up', 1, 'Error while activating network');
    });
    return [check('a', 'passed')];
  });
  t.equal(r.record.outcome, 'error');
  t.match(
    r.record.verdicts,
    [
      {
        id: 'a',
        title: 'A',
        label: 'skipped',
        met: true,
        message: 'not reached: the run broke in step "vagrant up": command exited 1: vagrant up',
      },
    ],
    'the check it never reached is listed as skipped, under its one title',
  );
  t.match(r.record.error, {
    step: 'vagrant up',
    message: 'command exited 1: vagrant up',
    detail: /Error while activating network/,
  });
  t.same(r.torn, ['close tunnel', 'destroy lab']);
  t.same(r.files, ['alloc.json', 'client.log'], 'on-failure covers errors');
});

t.test(
  'a run that broke is an error, not a failure, even when it was expected to fail (nothing was judged)',
  async (t) => {
    const broke = async (ctx: Parameters<Parameters<typeof run>[1]>[0]) => {
      await ctx.step('vagrant up', async () => {
        throw new CommandError('vagrant up', 1, 'no domain');
      });
      return [check('a', 'passed')];
    };
    t.equal((await run(t, broke, (c) => (c.expect.scenario = 'fail'))).record.outcome, 'error', '--expect fail');
    t.equal(
      (await run(t, broke, (c) => (c.expect.perCheck = { a: 'fail' }))).record.outcome,
      'error',
      '--expect a=fail on a check never reached',
    );
  },
);

t.test('interrupted mid-step: the step is cut short, cleanup runs, the run is marked interrupted', async (t) => {
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(new Error('interrupted by SIGINT')), 30);
  const started = Date.now();
  const r = await run(
    t,
    async (ctx) => {
      await ctx.step('wait for the node', (d) => sleep(60_000, d));
      return [check('a', 'passed')];
    },
    undefined,
    ctl.signal,
  );
  t.ok(Date.now() - started < 5000, 'did not wait out the step');
  t.equal(r.record.outcome, 'error');
  t.equal(r.record.interrupted, true);
  t.match(r.record.error, { message: 'interrupted by SIGINT', step: 'wait for the node' });
  t.match(r.record.verdicts, [
    { id: 'a', label: 'skipped', message: 'not reached: the run was interrupted in step "wait for the node"' },
  ]);
  t.same(r.torn, ['close tunnel', 'destroy lab']);
});

t.test('the run budget (timeout) cuts a step short and still cleans up', async (t) => {
  const keepAlive = setTimeout(() => {}, 5000);
  const r = await run(
    t,
    async (ctx) => {
      await ctx.step(
        'wait forever',
        (d) => new Promise((_, reject) => d.signal.addEventListener('abort', () => reject(d.signal.reason))),
      );
      return [];
    },
    (c) => (c.timeoutS = 0.05),
  );
  clearTimeout(keepAlive);
  t.equal(r.record.outcome, 'error');
  t.match(r.record.error, { step: 'wait forever', message: /deadline/ });
  t.same(r.torn, ['close tunnel', 'destroy lab']);
});

t.test('keep: cleanup released, the kept names returned newest first', async (t) => {
  const r = await run(
    t,
    async () => [check('a', 'passed')],
    (c) => (c.keep = true),
  );
  t.same(r.torn, [], 'nothing torn down');
  t.same(r.kept, ['close tunnel', 'destroy lab']);
  t.equal(r.record.outcome, 'passed');
  t.match(r.record.steps.at(-1), { name: 'teardown', status: 'skipped', message: /--keep/ });
});

t.test('keep on-failure: kept when the run failed or broke, torn down when it met its expectations', async (t) => {
  const onFailure = (c: HarnessConfig) => (c.keep = 'on-failure');
  const failed = await run(t, async () => [check('a', 'failed')], onFailure);
  t.equal(failed.record.outcome, 'failed');
  t.same(failed.torn, [], 'a failed run: nothing torn down');
  t.same(failed.kept, ['close tunnel', 'destroy lab']);
  const broke = await run(
    t,
    async () => {
      throw new Error('bring-up failed');
    },
    onFailure,
  );
  t.equal(broke.record.outcome, 'error');
  t.same(broke.torn, [], 'a broken run: kept');
  const passed = await run(t, async () => [check('a', 'passed')], onFailure);
  t.equal(passed.record.outcome, 'passed');
  t.same(passed.torn, ['close tunnel', 'destroy lab'], 'a passed run: torn down as usual');
  t.same(passed.kept, []);
  const expected = await run(
    t,
    async () => [check('a', 'failed')],
    (c) => {
      onFailure(c);
      c.expect.perCheck = { a: 'fail' };
    },
  );
  t.equal(expected.record.outcome, 'passed', 'an expected failure meets its expectations');
  t.same(expected.torn, ['close tunnel', 'destroy lab'], 'so its lab goes');
});

t.test('the teardown is a timed step of the record and of the console', async (t) => {
  const r = await run(t, async () => [check('a', 'passed')]);
  const step = r.record.steps.at(-1)!;
  t.match(step, { name: 'teardown', status: 'passed' });
  t.type(step.durationMs, 'number');
  t.ok(step.durationMs >= 0 && step.startedAtMs > 0, `took ${step.durationMs} ms`);
  t.match(
    r.log.filter((e) => e.kind === 'step' && e.name === 'teardown'),
    [{ phase: 'start' }, { phase: 'end', status: 'passed' }],
  );
});

t.test('a failing teardown is reported and turns a pass into an error', async (t) => {
  const r = await run(t, async (ctx) => {
    ctx.cleanup.defer('remove network', async () => {
      throw new Error('network busy');
    });
    return [check('a', 'passed')];
  });
  t.same(r.torn, ['close tunnel', 'destroy lab'], 'the other entries still ran');
  t.match(r.record.steps.at(-1), {
    name: 'teardown',
    status: 'error',
    message: 'teardown "remove network" failed: network busy',
  });
  t.equal(
    r.record.steps.filter((s) => s.name.startsWith('teardown')).length,
    1,
    'one teardown step, not one per entry',
  );
  t.equal(r.record.outcome, 'error');
  t.match(
    r.log.filter((e) => e.kind === 'cleanup' && !e.ok),
    [{ what: 'remove network', ok: false, message: 'network busy' }],
  );
});

t.test('artifacts: "always" writes them for a pass, "never" not even for a failure', async (t) => {
  const always = await run(
    t,
    async () => [check('a', 'passed')],
    (c) => (c.reports.artifacts = 'always'),
  );
  t.same(always.files, ['alloc.json', 'client.log']);
  t.equal(always.record.artifacts.length, 2);
  const never = await run(
    t,
    async () => [check('a', 'failed')],
    (c) => (c.reports.artifacts = 'never'),
  );
  t.equal(never.record.outcome, 'failed');
  t.same(never.files, []);
  t.same(never.record.artifacts, []);
});

t.test('evidence collectors run before teardown, only when artifacts are wanted', async (t) => {
  const order: string[] = [];
  const body = async (ctx: RunContext) => {
    ctx.onEvidence('journal', async () => {
      order.push('collect');
      ctx.artifact('journal.txt', 'lines');
    });
    ctx.onEvidence('broken', async () => {
      throw new Error('ssh closed');
    });
    ctx.cleanup.defer('teardown', async () => void order.push('teardown'));
    return [check('a', 'failed')];
  };
  const r = await run(t, body);
  t.same(order, ['collect', 'teardown']);
  t.ok(r.files.includes('journal.txt'));
  t.match(
    r.log.filter((e) => e.kind === 'warn'),
    [{ message: 'evidence (broken) not collected: ssh closed' }],
    'a failing collector is a warning',
  );
  order.length = 0;
  await run(t, body, (c) => (c.reports.artifacts = 'never'));
  t.same(order, ['teardown'], 'no collection when artifacts are off');
});

t.test('evidence collectors run at once, and every one ends before the teardown starts', async (t) => {
  const order: string[] = [];
  let open = 0;
  let most = 0;
  const collector = (name: string, ms: number) => async () => {
    open++;
    most = Math.max(most, open);
    order.push(`start ${name}`);
    await sleep(ms);
    order.push(`end ${name}`);
    open--;
  };
  const body = async (ctx: RunContext) => {
    ctx.onEvidence('hosts', collector('hosts', 60));
    ctx.onEvidence('lab', collector('lab', 10));
    ctx.cleanup.defer('destroy', async () => void order.push('teardown'));
    return [check('a', 'failed')];
  };
  await run(t, body);
  t.equal(most, 2, 'both collectors were running at the same time');
  t.same(order, ['start hosts', 'start lab', 'end lab', 'end hosts', 'teardown'], 'the slow one ends before teardown');
});
