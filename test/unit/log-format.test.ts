// Console progress: plain lines in CI, a live spinner line on a terminal, nothing with --quiet; always redacted.
import t from 'tap';
import { consoleLogger, formatEvent } from '../../lib/log/format.js';
import { redactingWriter } from '../../lib/log/redact.js';

const opts = { verbose: false, quiet: false, color: false };

t.test('plain mode: one timestamped line per event, commands only with --verbose, secrets redacted', async (t) => {
  const out: string[] = [];
  let now = 1000;
  // Note: as the CLI wires it: the logger writes to the console stream, which redacts.
  const log = consoleLogger(
    redactingWriter(
      (s) => void out.push(s),
      () => ['s3cr3t-token'],
    ),
    opts,
    () => now,
  );
  const at = (ms: number) => (now = 1000 + ms);
  at(61_000);
  log({ kind: 'step', t: 61_000, phase: 'start', name: 'bring up the VMs' });
  at(62_000);
  log({ kind: 'ssh', t: 62_000, machine: 'client', command: 'true' });
  at(65_000);
  log({ kind: 'step', t: 65_000, phase: 'end', name: 'bring up the VMs', status: 'passed', durationMs: 4000 });
  at(66_000);
  log({ kind: 'warn', t: 66_000, message: 'token s3cr3t-token leaked?' });
  t.same(out, [
    '[01:01] … bring up the VMs\n',
    '[01:05] ok bring up the VMs (4.0s)\n',
    '[01:06] warning: token [REDACTED] leaked?\n',
  ]);
  t.match(
    formatEvent(
      { kind: 'ssh', t: 0, machine: 'client', command: 'true', exitCode: 0, durationMs: 5 },
      { ...opts, verbose: true },
    ),
    /client\$ true -> 0/,
  );
  t.equal(formatEvent({ kind: 'step', t: 0, phase: 'start', name: 'x' }, { ...opts, quiet: true }), undefined);
});

t.test('terminal mode: the running step is a spinner line, replaced by its result line', async (t) => {
  const out: string[] = [];
  let now = 0;
  const log = consoleLogger(
    (s) => void out.push(s),
    { ...opts, color: true },
    () => now,
  );
  log({ kind: 'step', t: 0, phase: 'start', name: 'reboot the client' });
  t.match(out.join(''), /\r\x1b\[2K⠙ reboot the client \(0ms\)/, 'spinner drawn with the elapsed time');
  now = 31_000;
  log({ kind: 'info', t: 31_000, message: 'still waiting' });
  t.match(
    out.join(''),
    /\r\x1b\[2K\[00:31\] still waiting\n\r\x1b\[2K. reboot the client \(31\.0s\)/,
    'a log line is printed above the redrawn spinner',
  );
  log({ kind: 'step', t: 32_000, phase: 'end', name: 'reboot the client', status: 'failed', message: 'timed out' });
  t.match(out[out.length - 1]!, /FAIL.*reboot the client: timed out\n$/, 'the result line replaces the spinner');
  t.notMatch(out[out.length - 1]!, /⠋|⠙/);
});

t.test('repeated waits: one updating line on a terminal, a line each elsewhere', async (t) => {
  const waits = [
    { kind: 'wait', t: 5_000, what: 'client reboot', reason: 'ssh: connect ECONNREFUSED' },
    { kind: 'wait', t: 10_000, what: 'client reboot', reason: 'ssh: connect ETIMEDOUT' },
    { kind: 'wait', t: 15_000, what: 'client reboot', reason: 'ssh: same boot id (not rebooted yet)' },
  ] as const;
  const term: string[] = [];
  let now = 0;
  const live = consoleLogger(
    (s) => void term.push(s),
    { ...opts, color: true },
    () => now,
  );
  live({ kind: 'step', t: 0, phase: 'start', name: 'reboot the client' });
  for (const w of waits) {
    now = w.t;
    live(w);
  }
  const text = term.join('');
  t.notMatch(text, /\n/, 'no line scrolled: every wait redrew the live line');
  t.match(
    term.at(-1),
    /^\r\x1b\[2K. reboot the client \(15\.0s\): waiting for client reboot: ssh: same boot id \(not rebooted yet\)$/,
    'the live line names the step, its time and the latest wait',
  );
  now = 20_000;
  live({ kind: 'step', t: 20_000, phase: 'end', name: 'reboot the client', status: 'passed', durationMs: 20_000 });
  t.match(term.at(-1), /ok.*reboot the client \(20\.0s\)\n$/, 'the result line replaces it');
  now = 21_000;
  live({ kind: 'wait', t: 21_000, what: 'leader', reason: 'no leader yet' });
  t.match(term.at(-1), /waiting for leader: no leader yet\n$/, 'a wait outside a running step is a line');
  live({ kind: 'step', t: 21_000, phase: 'start', name: 'x'.repeat(30) });
  live({ kind: 'wait', t: 21_000, what: 'y'.repeat(200), reason: 'z' });
  t.ok(term.at(-1)!.replace('\r\x1b[2K', '').length <= 100, 'a long live line is cut so a terminal does not wrap it');

  const plain: string[] = [];
  const ci = consoleLogger(
    (s) => void plain.push(s),
    opts,
    () => now,
  );
  ci({ kind: 'step', t: 0, phase: 'start', name: 'reboot the client' });
  for (const w of waits) ci(w);
  t.equal(plain.filter((l) => l.includes('waiting for client reboot')).length, 3, 'CI logs keep every wait line');
});

t.test("Vagrant's own output is shown only with --verbose", async (t) => {
  const e = {
    kind: 'output',
    t: 0,
    source: 'vagrant',
    line: '==> client: Creating shared folders metadata...',
  } as const;
  t.equal(formatEvent(e, opts), undefined);
  t.equal(
    formatEvent(e, { ...opts, verbose: true }),
    '[00:00]     vagrant| ==> client: Creating shared folders metadata...',
  );
  const out: string[] = [];
  const log = consoleLogger(
    (s) => void out.push(s),
    opts,
    () => 0,
  );
  for (let i = 0; i < 40; i++) log({ ...e, line: `==> client: line ${i}` });
  t.same(out, [], 'forty lines of vagrant up print nothing by default');
});

t.test(
  'timestamps never go backwards: lines are stamped on the console clock, whatever clock the event used',
  async (t) => {
    const out: string[] = [];
    let now = 500;
    const log = consoleLogger(
      (s) => void out.push(s),
      opts,
      () => now,
    );
    now += 754_000;
    log({ kind: 'step', t: 750_000, phase: 'start', name: 'teardown' });
    now += 2_000;
    log({ kind: 'info', t: 0, message: 'destroyed lab r1' }); // an event stamped 0 (no run clock)
    now += 3_000;
    log({ kind: 'cleanup', t: 12_000, what: 'vagrant destroy -f', ok: true }); // another clock
    t.same(out, ['[12:34] … teardown\n', '[12:36] destroyed lab r1\n', '[12:39] cleaned up vagrant destroy -f\n']);
  },
);

t.test("a step's values are shown beside its fixed name", async (t) => {
  const o = { verbose: false, quiet: false, color: false };
  const values = { 'job.id': 'web', 'job.expected_allocs': '3' };
  t.equal(
    formatEvent(
      { kind: 'step', t: 0, phase: 'end', name: 'register the job', status: 'passed', durationMs: 5, values },
      o,
    ),
    '[00:00] ok register the job [job.id web; job.expected_allocs 3] (5ms)',
  );
  t.equal(formatEvent({ kind: 'step', t: 0, phase: 'start', name: 'observe' }, o), '[00:00] … observe');
});
