// A step's stable id: recorded by RunContext, kept by the JSON summary and read back by merge, and what readers of
// reports (bench/, the bisect report) sum steps by, whatever the step's name says; older reports by their names.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { STEP_IDS, type RunRecord, type StepRecord } from '../../lib/model/run.js';
import { RunContext } from '../../lib/run/context.js';
import { renderSessionJson } from '../../lib/report/json.js';
import { parseSessionJson } from '../../lib/report/parse-session.js';
import { isStepOf, msOfSteps } from '../../lib/report/step-id.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { runFigures } from '../../bench/report-figures.js';
import { sessionOf } from '../helpers/session.js';

const ctxOf = () => new RunContext({ runId: 'r1', scenario: 's', logger: () => {}, deadline: deadlineIn(60_000) });

t.test('a step given an id records it, passed, failed or skipped; a step without one records none', async (t) => {
  const ctx = ctxOf();
  await ctx.step('reboot client-1 (reboot) (wave 2)', async () => 1, { id: STEP_IDS.fault, values: { n: 2 } });
  await ctx.step('read the journal', async () => 1);
  await t.rejects(
    ctx.step(
      'wait until the job has settled',
      async () => {
        throw new Error('boom');
      },
      { id: STEP_IDS.settle },
    ),
  );
  ctx.skipStep('observe after the reboot', 'no allocs', STEP_IDS.observeAfter);
  t.same(
    ctx.steps.map((s) => [s.name, s.id, s.status]),
    [
      ['reboot client-1 (reboot) (wave 2)', 'fault', 'passed'],
      ['read the journal', undefined, 'passed'],
      ['wait until the job has settled', 'settle', 'error'],
      ['observe after the reboot', 'observe-after', 'skipped'],
    ],
  );
  t.notOk('id' in ctx.steps[1]!, 'no id key at all for a step without one');
  t.same(ctx.steps[0]!.values, { n: '2' }, 'the values stay apart from the id');
});

t.test('the JSON summary keeps each step id (null for none) and merge reads it back', async (t) => {
  const steps: StepRecord[] = [
    { name: 'bring up the lab', id: STEP_IDS.labUp, status: 'passed', startedAtMs: 1_000, durationMs: 5 },
    { name: 'read the journal', status: 'passed', startedAtMs: 2_000, durationMs: 7 },
  ];
  const run: RunRecord = {
    runId: 'r1',
    scenario: 'rolling-reboot',
    suiteName: 'rolling-reboot',
    hostname: 'h',
    startedAtMs: 0,
    durationMs: 100,
    properties: {},
    steps,
    verdicts: [],
    artifacts: [],
    timeline: [],
    outcome: 'passed',
  };
  const text = renderSessionJson(sessionOf([run]));
  const doc = JSON.parse(text) as { runs: { steps: { name: string; id: string | null }[] }[] };
  t.same(
    doc.runs[0]!.steps.map((s) => [s.name, s.id]),
    [
      ['bring up the lab', 'lab-up'],
      ['read the journal', null],
    ],
  );
  const back = parseSessionJson(text);
  if (!back.ok) throw new Error(back.message);
  const read = back.session.suites[0]!.attempts[0]!.steps;
  t.equal(read[0]!.id, 'lab-up');
  t.notOk('id' in read[1]!, 'null in the JSON is no id in the record, as a report from before ids had');
});

t.test('readers sum steps by id: a renamed step still counts, an older report counts by its names', async (t) => {
  const steps = [
    // a newer report: the fault step of a cluster run has a name no old pattern knows
    { name: 'reboot client-1, client-2 (reboot) (wave 1)', id: 'fault', durationMs: 100 },
    { name: 'disrupt the client (agent-kill)', id: 'fault', durationMs: 10 },
    // a step whose id says it is not the fault, though its name reads like one
    { name: 'reboot the client VM clock', id: 'something-else', durationMs: 1_000 },
    // an older report: no id (null in its JSON), read by its name
    { name: 'reboot the client (reboot)', id: null, durationMs: 5 },
    { name: 'wait until every alloc of the job runs', durationMs: 7 },
    { name: 'read the journal', durationMs: 11 },
  ];
  t.equal(
    msOfSteps(steps, [STEP_IDS.fault], (s) => s.durationMs),
    115,
  );
  t.equal(
    msOfSteps(steps, [STEP_IDS.jobRunning, STEP_IDS.jobDeployment], (s) => s.durationMs),
    7,
  );
  t.same(
    steps.filter((s) => !isStepOf([STEP_IDS.fault, STEP_IDS.jobRunning])(s)).map((s) => s.durationMs),
    [1_000, 11],
    'a step with an unknown id or none that no old name matches is nobody',
  );
});

t.test('bench/report-figures: the reboot and the job start found by id, whatever the names', async (t) => {
  const doc = {
    runs: [
      {
        durationMs: 1_000,
        properties: {},
        steps: [
          { name: 'bring the machines up', id: 'lab-up', durationMs: 300 },
          { name: 'power-cycle client-1', id: 'fault', durationMs: 200 },
          { name: 'allocs up', id: 'job-running', durationMs: 100 },
          { name: 'deployment done', id: 'job-deployment', durationMs: 50 },
          { name: 'settle', id: 'settle', durationMs: 40, values: { 'reboot.settle_confirm_s': '0.01' } },
        ],
      },
    ],
  };
  const f = runFigures(doc, 'r');
  t.equal(f.rebootMs, 200);
  t.equal(f.jobStartMs, 150);
  t.equal(f.besidesMs, 650);
  t.same(
    f.besides.map((s) => s.name),
    ['bring the machines up', 'settle'],
  );
  t.match(f.settle, { stepMs: 40, windowMs: 10 });
});

t.test('every id of STEP_IDS is plain, used once, and given to a step by the shipped code', async (t) => {
  const ids = Object.values(STEP_IDS);
  t.equal(new Set(ids).size, ids.length, 'no two names for one id');
  for (const id of ids) t.match(id, /^[a-z][a-z-]*$/, `${id}: a plain id`);
  const dirs = ['scenarios', 'lib/steps', 'lib/run'];
  const source = dirs
    .flatMap((d) =>
      readdirSync(new URL(`../../${d}/`, import.meta.url))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => readFileSync(new URL(`../../${d}/${f}`, import.meta.url), 'utf8')),
    )
    .join('\n');
  for (const key of Object.keys(STEP_IDS))
    t.match(source, new RegExp(`STEP_IDS\\.${key}\\b`), `STEP_IDS.${key} is given to a step`);
});
