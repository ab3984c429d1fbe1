// Faults of the lab itself (issue 15) through main(), against STAND-INS: the Nomad API stand-in (real routes and
// payload shapes, not Nomad) and the stand-in lab (no VMs). A client that never comes back, a Nomad API answering 500
// for a while, and SIGINT/SIGTERM in each phase of a run. The real SSH and VM sides are in lab-faults-ssh.test.ts and
// test/vm/lab-faults.test.ts.
import t, { type Test } from 'tap';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { XMLParser } from 'fast-xml-parser';
import { main } from '../../lib/cli/main.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import { standIn } from '../helpers/stand-in-env.js';
import { standInRunArgs } from '../helpers/stand-in-run.js';

interface RunOpts {
  sshNeverBack?: boolean;
  upMs?: number;
  provisionMs?: number;
  /** send this signal once a console line matches `at` */
  signal?: { name: 'SIGINT' | 'SIGTERM'; at: RegExp };
  before?: (s: Awaited<ReturnType<typeof standIn>>) => void;
}

async function run(t: Test, extra: string[], o: RunOpts = {}) {
  const dir = t.testdir({});
  const s = await standIn('restored', {
    cwd: dir,
    ...(o.sshNeverBack ? { sshNeverBack: true } : {}),
    ...(o.upMs ? { upMs: o.upMs } : {}),
    ...(o.provisionMs ? { provisionMs: o.provisionMs } : {}),
  });
  t.teardown(() => s.nomad.close());
  o.before?.(s);
  const signals = new EventEmitter();
  let sent = false;
  const err = s.deps.err;
  const deps = {
    ...s.deps,
    signalSource: signals,
    err: (line: string) => {
      err(line);
      // Note: as a person's Ctrl-C, the signal arrives while the step runs, not inside the line that announced it
      if (o.signal && !sent && o.signal.at.test(line)) {
        sent = true;
        setImmediate(() => signals.emit(o.signal!.name, o.signal!.name));
      }
    },
  };
  const t0 = performance.now();
  const code = await main([...standInRunArgs(dir), ...extra], deps);
  const ms = performance.now() - t0;
  validateJUnit(t, join(dir, 'junit.xml'));
  const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(junit);
  const cases = [xml.testsuites.testsuite.testcase].flat() as Record<string, unknown>[];
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const errors = cases
    .filter((c) => c['error'])
    .map((c) => ({ name: String(c['name']), ...(c['error'] as { type: string; message: string; '#text'?: string }) }));
  return { code, ms, junit, summary, errors, s, sent, dir, console: s.err.join('') };
}

// Note: one test at a time: "500 past nomad.retry_for" reads the time of the last answer inside a 2 s window (it
// failed with two at a time under load 20: 2.1 s), so a second test in the process is not worth the 18 s it saved
t.test(
  'the client never comes back: exit 3 within --reboot-deadline, naming the wait, the last SSH error and the console tail',
  async (t) => {
    const r = await run(t, ['--reboot-deadline', '2s'], { sshNeverBack: true });
    t.equal(r.code, 3, 'exit 3 (infrastructure)');
    const step = r.summary.runs[0].steps.find((s: { name: string }) => s.name.startsWith('reboot the client'));
    t.equal(step.status, 'error');
    t.ok(
      step.durationMs >= 1900 && step.durationMs < 6000,
      `the reboot step ended at the deadline (${Math.round(step.durationMs)} ms)`,
    );
    const e = r.errors.find((x) => x.name.startsWith('reboot the client'))!;
    t.equal(e.type, 'infrastructure');
    t.match(
      e.message,
      /fake-client did not come back after the graceful fault within [0-2]\.\ds \(the reboot deadline: reboot\.deadline, --reboot-deadline\): waiting for fake-client to answer over SSH with a new boot_id/,
    );
    t.match(e.message, /last: ssh vagrant@127\.0\.0\.1:22: connect ECONNREFUSED/, 'the last SSH error');
    t.match(
      e['#text'],
      /serial console \(last 4 lines of \/stand-in\/fake-client-serial\.log\):\n {2}\| \[ {4}0\.000000\] Linux version[\s\S]*\| \[ {2}122\.003117\] stand-in: the guest hangs here/,
      'the console tail in the JUnit error body',
    );
    t.match(e['#text'], /hint: the guest hangs at boot/);
    t.ok(
      r.summary.runs[0].artifacts.some((a: { name: string }) => a.name === 'fake-client-serial.log'),
      'the whole serial log is an artifact',
    );
    t.match(
      readFileSync(join(r.dir, 'reports', r.summary.runs[0].runId, 'fake-client-serial.log'), 'utf8'),
      /the guest hangs here/,
    );
    t.ok(r.s.lab.destroyed, 'nothing is left: the lab was torn down');
    t.match(
      r.summary.runs[0].verdicts.find((v: { id: string }) => v.id === 'alloc-restored'),
      { label: 'skipped', message: /not reached: the run broke in step "reboot the client \(graceful\)"/ },
    );
  },
);

t.test('Nomad answers 500 for a while: retried within nomad.retry_for, the run proceeds (exit 0)', async (t) => {
  let clear = () => {};
  const r = await run(t, [], {
    before: (s) => {
      clear = s.nomad.failRequests({
        method: 'POST',
        path: /^\/v1\/jobs$/,
        status: 500,
        body: 'rpc error: No cluster leader',
        times: 3,
      });
    },
  });
  t.teardown(clear);
  t.equal(r.code, 0, 'exit 0: the 500s cleared in time');
  t.equal(
    r.s.nomad.requests.filter((q) => q.method === 'POST' && q.path === '/v1/jobs').length,
    4,
    'three 500s, then the fourth registration succeeded',
  );
  t.match(
    r.console,
    /Nomad API POST \/v1\/jobs: HTTP 500: rpc error: No cluster leader; retrying for up to 1m00s \(nomad\.retry_for\)/,
    'the retry is said once',
  );
});

t.test('Nomad answers 500 past nomad.retry_for: exit 3 with the status and body', async (t) => {
  let clear = () => {};
  const r = await run(t, ['--nomad-retry-for', '2s'], {
    before: (s) => {
      clear = s.nomad.failRequests({
        method: 'POST',
        path: /^\/v1\/jobs$/,
        status: 500,
        body: 'rpc error: No cluster leader',
      });
    },
  });
  t.teardown(clear);
  t.equal(r.code, 3, 'exit 3');
  const e = r.errors.find((x) => x.name === 'register the job')!;
  t.match(
    e.message,
    /^Nomad API POST \/v1\/jobs: HTTP 500: rpc error: No cluster leader \(the last of \d+ answers over \d+\.\ds: nomad\.retry_for, --nomad-retry-for\) \[job\.id bridge-exec-http\]$/,
  );
  // Note: the span is from the first answer to the last, whose request may start just before the 2 s are up: at load
  // 25 it read "over 2.0s"
  const span = Number(/answers over (\d+\.\d)s/.exec(e.message)?.[1]);
  t.ok(
    span >= 1 && span < 3,
    `the answers spanned the 2 s of nomad.retry_for and one request more at most (${span} s)`,
  );
  const posts = r.s.nomad.requests.filter((q) => q.method === 'POST' && q.path === '/v1/jobs').length;
  t.ok(posts >= 3 && posts <= 8, `retried with back-off (${posts} requests in 2 s)`);
  t.ok(r.s.lab.destroyed, 'the lab was torn down');
});

// Each phase of a run: the step a signal arrives in, and the evidence that must be in the report by then.
const PHASES: { phase: string; at: RegExp; step: RegExp; artifacts: string[] }[] = [
  {
    phase: 'bring-up',
    at: /… bring up the server and client VMs/,
    step: /^bring up/,
    artifacts: ['fake-client-serial.log', 'vagrant-status.txt'],
  },
  {
    phase: 'provisioning',
    at: /… install Nomad and start the agents/,
    step: /^install Nomad/,
    artifacts: ['fake-client-serial.log'],
  },
  {
    phase: 'before the reboot',
    at: /… observe before the reboot/,
    step: /^observe before/,
    artifacts: ['fake-client-serial.log', 'events.ndjson'],
  },
  {
    phase: 'the reboot wait',
    at: /… reboot the client/,
    step: /^reboot the client/,
    artifacts: ['fake-client-serial.log', 'events.ndjson', 'alloc-before.json', 'job-allocs-before.json'],
  },
  {
    phase: 'the checks',
    at: /… observe after the reboot/,
    step: /^observe after/,
    artifacts: ['fake-client-serial.log', 'events.ndjson', 'alloc-before.json'],
  },
];

for (const p of PHASES) {
  for (const name of ['SIGINT', 'SIGTERM'] as const) {
    t.test(`${name} during ${p.phase}: exit 130, the evidence so far in the report, the lab gone`, async (t) => {
      const r = await run(t, [], { upMs: 300, provisionMs: 300, signal: { name, at: p.at } });
      t.ok(r.sent, `the run reached ${p.phase}`);
      t.equal(r.code, 130, 'exit 130');
      const run0 = r.summary.runs[0];
      t.equal(run0.interrupted, true, 'summary: the run was interrupted');
      t.equal(r.summary.interrupted, true, 'summary: the session was interrupted');
      const step = run0.steps.find((s: { name: string }) => p.step.test(s.name));
      t.match(step, { status: 'error', message: `interrupted by ${name}` }, 'the step the signal came in');
      const e = r.errors.find((x) => p.step.test(x.name));
      t.match(
        e,
        { type: 'interrupted', message: `interrupted by ${name}` },
        'JUnit: <error type="interrupted"> on that step',
      );
      t.notOk(
        r.errors.some((x) => x.type !== 'interrupted'),
        'no other kind of error',
      );
      const names = run0.artifacts.map((a: { name: string }) => a.name);
      for (const a of p.artifacts) t.ok(names.includes(a), `artifact ${a} listed`);
      t.ok(
        run0.verdicts.length > 0 && run0.verdicts.every((v: { label: string }) => v.label === 'skipped'),
        'every check skipped (not reached)',
      );
      t.ok(r.s.lab.destroyed, 'the lab was torn down');
      t.match(r.junit, /\[\[ATTACHMENT\|.*fake-client-serial\.log\]\]/, 'JUnit attaches the evidence');
    });
  }
}
