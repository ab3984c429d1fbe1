// Faults of the lab itself (issue 15), the pure parts: the reboot deadline and the Nomad retry budget as config keys,
// the reboot step's budget, the never-back error (console tail), Vagrant's output as a readable transcript, and a step
// that does not start after an interrupt.
import t from 'tap';
import { resolveConfig } from '../../lib/config/validate.js';
import { DEFAULTS } from '../../lib/config/schema.js';
import { rebootStepMs } from '../../lib/steps/fault-step.js';
import { CONSOLE_TAIL_LINES, consoleTail, notBackError, NotBackError } from '../../lib/lab/not-back.js';
import { EXIT, InterruptedError, TimeoutError } from '../../lib/errors.js';
import { rubyException, transcriptLine } from '../../lib/parse/vagrant-machine-readable.js';
import { RunContext } from '../../lib/run/context.js';
import { deadlineIn } from '../../lib/time/deadlines.js';

const cfg = (flags: Record<string, unknown>, file?: unknown) =>
  resolveConfig({ file, env: {}, flags, knownChecks: [] });

t.test(
  '--reboot-deadline / reboot.deadline and --nomad-retry-for / nomad.retry_for: durations, defaults, bad values named',
  async (t) => {
    t.match(
      cfg({}),
      { ok: true, config: { reboot: { deadlineS: 600 }, nomad: { retryForS: 60 } } },
      'defaults: 10 min, 1 min',
    );
    t.match(cfg({ 'reboot-deadline': '90s', 'nomad-retry-for': '0' }), {
      ok: true,
      config: { reboot: { deadlineS: 90 }, nomad: { retryForS: 0 } },
    });
    t.match(cfg({}, { reboot: { deadline: '15m' }, nomad: { retry_for: '2m' } }), {
      ok: true,
      config: { reboot: { deadlineS: 900 }, nomad: { retryForS: 120 } },
    });
    const bad = cfg({ 'reboot-deadline': '0s', 'nomad-retry-for': 'soon' });
    t.equal(bad.ok, false);
    if (!bad.ok) {
      t.match(
        bad.problems,
        [
          { field: '--nomad-retry-for', value: 'soon', message: /must be a duration from 0s to 3600s/ },
          { field: '--reboot-deadline', value: '0s', message: /must be a duration from 1s to 3600s/ },
        ],
        'both problems at once',
      );
    }
  },
);

t.test("the reboot step budget is the fault's own hold plus the reboot deadline", async (t) => {
  const c = (kind: typeof DEFAULTS.reboot.kind) => ({
    ...DEFAULTS,
    reboot: { ...DEFAULTS.reboot, kind, deadlineS: 90, offForS: 20, partitionForS: 45 },
  });
  t.equal(rebootStepMs(c('graceful')), 90_000);
  t.equal(rebootStepMs(c('hard')), 90_000);
  t.equal(rebootStepMs(c('power-off')), 110_000, 'off_for + deadline');
  t.equal(rebootStepMs(c('partition')), 135_000, 'partition_for + deadline');
});

t.test('the console tail: the last non-empty lines, without carriage returns and terminal escapes', async (t) => {
  const text = ['\x1b[0;32m[  OK  ]\x1b[0m Started ssh.service.\r', '', '   ', 'reboot: Restarting system\r', ''].join(
    '\n',
  );
  t.same(consoleTail(text), ['[  OK  ] Started ssh.service.', 'reboot: Restarting system']);
  const many = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
  t.equal(consoleTail(many).length, CONSOLE_TAIL_LINES);
  t.equal(consoleTail(many).at(-1), 'line 49');
});

t.test(
  'notBackError: exit 3, names the wait, how long, the last SSH error and the console (or why there is none)',
  async (t) => {
    const timeout = new TimeoutError(
      'vm-client to answer over SSH with a new boot_id (was b1)',
      90_400,
      'ssh vagrant@10.198.0.5:22: no SSH handshake within 5.0s',
    );
    const e = notBackError(timeout, {
      machine: 'vm-client',
      kind: 'hard',
      console: { path: '/var/log/c-serial.log', text: 'a\nb\n' },
    });
    t.type(e, NotBackError);
    t.equal(e.exitCode, EXIT.INFRA);
    t.equal(
      e.message,
      [
        'vm-client did not come back after the hard fault within 1m30s (the reboot deadline: reboot.deadline, --reboot-deadline): waiting for vm-client to answer over SSH with a new boot_id (was b1); last: ssh vagrant@10.198.0.5:22: no SSH handshake within 5.0s',
        'serial console (last 2 lines of /var/log/c-serial.log):',
        '  | a',
        '  | b',
      ].join('\n'),
    );
    t.match(e, { what: timeout.what, last: timeout.last, consoleTail: ['a', 'b'] });
    t.match(
      notBackError(timeout, { machine: 'm', kind: 'graceful', console: { path: '/x.log', text: '\r\n' } }).message,
      /\nserial console: \/x\.log is empty \(the guest printed nothing\)$/,
    );
    t.match(
      notBackError(timeout, { machine: 'm', kind: 'graceful', console: { none: 'no serial log here' } }).message,
      /\nserial console: no serial log here$/,
    );
  },
);

t.test(
  'transcriptLine: Vagrant UI messages as text, error-exit as ERROR, plain lines kept, metadata and progress dropped',
  async (t) => {
    t.equal(transcriptLine('1796206586,client,ui,info,==> client: Starting domain.'), '==> client: Starting domain.');
    t.equal(transcriptLine('1796206586,client,ui,info,Domain:%!(VAGRANT_COMMA) name'), 'Domain:, name');
    t.equal(
      transcriptLine('1796206587,,error-exit,Vagrant::Errors::X,line one\\nline two'),
      'ERROR Vagrant::Errors::X: line one\nline two',
    );
    t.equal(transcriptLine('1796206585,client,metadata,provider,libvirt'), undefined);
    t.equal(transcriptLine('1796206586,client,ui,info,Progress: 45%'), undefined);
    t.equal(transcriptLine('    Progress: 45%'), undefined);
    t.equal(
      transcriptLine('An error occurred while executing the action on the machine.'),
      'An error occurred while executing the action on the machine.',
    );
    t.equal(transcriptLine('   '), undefined);
  },
);

t.test(
  'a step does not start after an interrupt: recorded as an error with the reason, its work never runs',
  async (t) => {
    const ctl = new AbortController();
    const ctx = new RunContext({
      runId: 'r1',
      scenario: 's',
      logger: () => {},
      deadline: { at: Number.POSITIVE_INFINITY, signal: ctl.signal },
    });
    await ctx.step('first', async () => void ctl.abort(new InterruptedError('SIGTERM')));
    let ran = false;
    await t.rejects(
      ctx.step('second', async () => {
        ran = true;
      }),
      { message: 'interrupted by SIGTERM' },
    );
    t.notOk(ran, "the second step's work did not run");
    t.match(ctx.steps, [
      { name: 'first', status: 'passed' },
      { name: 'second', status: 'error', message: 'interrupted by SIGTERM' },
    ]);
    const ok = new RunContext({ runId: 'r2', scenario: 's', logger: () => {}, deadline: deadlineIn(10_000) });
    t.equal(await ok.step('runs', async () => 7), 7, 'an open deadline starts steps as before');
    // the run budget running out is no interrupt: a scenario may still judge what it saw (server-reboot does)
    const spent = new RunContext({ runId: 'r3', scenario: 's', logger: () => {}, deadline: deadlineIn(0) });
    await new Promise((r) => setTimeout(r, 20));
    t.ok(spent.deadline.signal.aborted);
    t.equal(await spent.step('judge', async () => 'judged'), 'judged', 'a step after the run budget still runs');
  },
);

t.test(
  'rubyException: the exception a plugin let escape, from its first stack line (real vagrant-libvirt 0.11.2 output)',
  async (t) => {
    const stderr = [
      "/usr/lib/ruby/vendor_ruby/fog/libvirt/requests/compute/vm_action.rb:7:in `create': Call to virDomainCreateWithFlags failed: internal error: Unknown CPU model nrh-no-such-cpu (Libvirt::Error)",
      "\tfrom /usr/lib/ruby/vendor_ruby/fog/libvirt/requests/compute/vm_action.rb:7:in `vm_action'",
      "\tfrom /usr/lib/ruby/vendor_ruby/fog/libvirt/models/compute/server.rb:76:in `start'",
    ].join('\n');
    t.same(rubyException(stderr), {
      errorClass: 'Libvirt::Error',
      message: 'Call to virDomainCreateWithFlags failed: internal error: Unknown CPU model nrh-no-such-cpu',
    });
    t.equal(rubyException('fake stderr line\n'), undefined);
  },
);
