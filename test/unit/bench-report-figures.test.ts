// bench/report-figures.ts on a real report (a cold run of bridge-exec-reboot's whole-alloc job on real 1.10.5 VMs,
// run r62lma607cee5c, 2026-12-04) and on the shapes the settle and the notice take in newer runs.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { figuresMarkdown, parseNoticedAfter, runFigures, settleFigures } from '../../bench/report-figures.js';

const REAL = JSON.parse(
  readFileSync(new URL('../fixtures/report/real-1.10.5-cold-summary.json', import.meta.url), 'utf8'),
) as unknown;

t.test(
  'a real cold run: the harness besides the reboot and the job, its share of the notice, the settle',
  async (t) => {
    const f = runFigures(REAL, 'cold run');
    t.match(f, { outcome: 'failed', nomad: '1.10.5', wallMs: 461144 });
    t.equal(Math.round(f.rebootMs), 126813, 'the reboot step');
    t.equal((f.besidesMs / 1000).toFixed(1), '285.7');
    t.equal((f.jobStartMs / 1000).toFixed(1), '48.6');
    t.same(f.notices, [{ name: 'web[0]', totalMs: 513, nomadMs: 323, harnessMs: 190 }]);
    t.same(f.settle && { ...f.settle, stepMs: Math.round(f.settle.stepMs) }, {
      stepMs: 59676,
      windowMs: 20000,
      window: 'quiet period',
      decisionMs: f.settle!.stepMs - 20000,
    });
    const besides = f.besides.reduce((n, s) => n + s.durationMs, 0) + f.outsideMs;
    t.equal(Math.round(besides), Math.round(f.besidesMs), 'the step list and the CLI outside its steps add up');
    t.notOk(f.besides.some((s) => /^reboot the client|^wait until every alloc/.test(s.name)));
    t.equal(runFigures(REAL, 'x', 500_000).wallMs, 500_000, 'a wall clock the caller measured wins');
    // a newer run waits for the job's deployment too: the job's own start, not the harness's time
    const withDeployment = structuredClone(REAL) as { runs: { steps: { name: string; durationMs: number }[] }[] };
    withDeployment.runs[0]!.steps.push({ name: "wait for Nomad to finish the job's deployment", durationMs: 8300 });
    const g = runFigures(withDeployment, 'newer');
    t.equal(Math.round(g.jobStartMs - f.jobStartMs), 8300, "the deployment's wait counts to the job's own start");
    t.equal(Math.round(f.besidesMs - g.besidesMs), 8300, "and not to the harness's time");
  },
);

t.test("notices of several allocs, one without Nomad's part, and a run without the split", async (t) => {
  t.same(
    parseNoticedAfter(
      "web[0] 212 ms, web[1] 180 ms (client clock +230 ms ± 40 ms; seen first by the event stream; the settle wait's read: 412 ms, 380 ms; of it Nomad's (Started to the server's record of it, server clock -20 ms ± 30 ms): 150 ms, ?)",
    ),
    [
      { name: 'web[0]', totalMs: 212, nomadMs: 150, harnessMs: 62 },
      { name: 'web[1]', totalMs: 180 },
    ],
  );
  t.same(parseNoticedAfter('web[0] 441 ms (client clock +5 ms ± 60 ms; seen first by the settle wait)'), [
    { name: 'web[0]', totalMs: 441 },
  ]);
});

t.test("the settle on Nomad's state: its confirmation window; two settles of --reboots 2 add up", async (t) => {
  const name = (of = '') =>
    `wait until the job has settled (every alloc restored, replaced or failed, and Nomad with nothing pending for it; 3s unchanged)${of}`;
  t.same(settleFigures([{ name: name(), durationMs: 7500 }]), {
    stepMs: 7500,
    windowMs: 3000,
    window: 'confirmation window',
    decisionMs: 4500,
  });
  t.match(
    settleFigures([
      { name: name(' #1'), durationMs: 5000 },
      { name: name(' #2'), durationMs: 6000 },
    ]),
    {
      stepMs: 11000,
      windowMs: 6000,
      decisionMs: 5000,
    },
  );
  t.equal(settleFigures([{ name: 'observe before the reboot', durationMs: 1 }]), undefined);
});

t.test('the settle window from the step values a report records (the name carries none)', async (t) => {
  const name =
    'wait until the job has settled (every alloc restored, replaced or failed, and Nomad with nothing pending for it)';
  const values = { 'reboot.settle_quiet_s': '20', 'reboot.settle_confirm_s': '3' };
  t.same(settleFigures([{ name, durationMs: 7500, values }]), {
    stepMs: 7500,
    windowMs: 3000,
    window: 'confirmation window',
    decisionMs: 4500,
  });
  const fig = runFigures({ runs: [{ steps: [{ name, durationMs: 7500, values }], durationMs: 9000 }] }, 'r');
  t.equal(fig.settle?.windowMs, 3000, 'runFigures passes the values on');
});

t.test('the markdown has a column per run and says what it lacks', async (t) => {
  const f = runFigures(REAL, 'cold run');
  const none = { ...f, label: 'warm rerun', notices: [] };
  delete (none as { settle?: unknown }).settle;
  const md = figuresMarkdown([f, none]);
  t.match(md, /\| figure \| cold run \| warm rerun \|/);
  t.match(md, /\| \*\*of it the harness's\*\* \(goal: < 100 ms\) \| web\[0\] \*\*190 ms\*\* \| not recorded \|/);
  t.match(md, /\| \*\*the settle's decision time\*\* \| \*\*39\.7 s\*\* \| no settle step \|/);
  t.match(md, /\| cold run: step besides the reboot and the job's own start \| time \|/);
  t.throws(() => runFigures({}, 'x.json'), /x\.json: not a harness JSON report/);
});
