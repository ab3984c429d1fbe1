// bridge-exec-reboot with the fault kinds that keep the host up (issue 15), against STAND-INS: the Nomad API stand-in
// and the stand-in lab (test/helpers/fake-lab.ts: agent-kill restarts the stand-in agent, partition cuts its
// heartbeats). The real commands (systemctl kill, iptables) run only in the VM and e2e tiers.
import t, { type Test } from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runOnStandIns } from '../helpers/stand-in-run.js';

interface V {
  id: string;
  status: string;
  message: string;
  evidence: string[];
}

async function run(t: Test, extra: string[], scenario = 'bridge-exec-reboot') {
  const r = await runOnStandIns(t, ['--artifacts', 'always', ...extra], { scenario });
  return { ...r, read: r.run0 };
}

t.test(
  'agent-kill: the agent restarts, the host does not; the alloc stays, the task is not restarted; every check says so',
  async (t) => {
    const r = await run(t, ['--reboot', 'agent-kill']);
    t.equal(r.code, 0, `exit 0 (${r.err().slice(-400)})`);
    const run0 = r.read();
    const v = (id: string) => (run0.verdicts as V[]).find((x) => x.id === id)!;
    t.match(v('client-rebooted'), {
      status: 'passed',
      message:
        /boot_id unchanged \(.*\), as expected: agent-kill: the agent restarts, the host does not; the agent was restarted by systemd \(pid 700 -> 711\)/,
    });
    t.match(v('task-restarted'), { status: 'passed', message: /kept running through agent-kill/ });
    t.equal(v('alloc-restored').status, 'passed');
    t.equal(run0.properties['agent.pid.before'], '700');
    t.equal(run0.properties['reboot.kind'], 'agent-kill');
    t.match(run0.properties['reboot.expected'], /the control case/);
    const html = readFileSync(join(r.dir, 'reports', run0.runId, 'report.html'), 'utf8');
    t.match(html, /Nomad agent SIGKILLed/, 'the fault on the timeline');
    t.match(html, /agent-kill over, boot_id unchanged/);
    t.match(html, /stream: node initializing/, 'the re-registration seen in the event stream');
  },
);

t.test('partition shorter than heartbeat_grace: nothing is replaced, the task keeps running', async (t) => {
  const r = await run(t, ['--reboot', 'partition', '--partition-for', '1s']);
  t.equal(r.code, 0, `exit 0 (${r.err().slice(-400)})`);
  const run0 = r.read();
  const v = (id: string) => (run0.verdicts as V[]).find((x) => x.id === id)!;
  t.match(v('client-rebooted'), { status: 'passed', message: /as expected: partition of 1s <= heartbeat_grace 300s/ });
  t.match(v('task-restarted'), { status: 'passed', message: /kept running through partition/ });
  t.match(v('alloc-restored'), { status: 'passed' });
  t.ok(Number(run0.properties['partition.seconds']) >= 1);
});

t.test(
  'partition longer than heartbeat_grace: the node goes down and the alloc is replaced, and the verdict says that was expected',
  async (t) => {
    const r = await run(t, ['--reboot', 'partition', '--partition-for', '1s', '--heartbeat-grace', '300ms']);
    t.equal(
      r.code,
      0,
      `exit 0: ${JSON.stringify((r.read().verdicts as V[]).filter((x) => x.status === 'failed').map((x) => [x.id, x.message]))}`,
    );
    const run0 = r.read();
    const v = (id: string) => (run0.verdicts as V[]).find((x) => x.id === id)!;
    t.match(v('alloc-restored'), {
      status: 'passed',
      message:
        /^replaced, as expected \(partition of 1s > heartbeat_grace 0\.3s\): alloc \S+ \(\S+\) was replaced by \S+ .*: the node was marked down/,
    });
    t.match(v('task-restarted'), { status: 'passed', message: /replacement .* task is running/ });
    t.match(
      v('alloc-restored').message,
      /the node was marked down during the partition \(.*\): the server's heartbeat_grace \(300ms\) is shorter than the partition \(\d+ s\)/,
      'the explanation names the partition and how long it held',
    );
    t.notMatch(v('alloc-restored').message, /reboot|SSH was back/, 'and no reboot');
    const steps = (run0.steps as { name: string }[]).map((s) => s.name);
    t.ok(steps.includes('disrupt the client (partition)'), `the fault step says what it did: ${steps.join(' | ')}`);
    t.notOk(
      steps.some((n) => n.startsWith('reboot the client')),
      'no step claims a reboot',
    );
    t.match(v('client-rebooted'), { status: 'passed' });
    t.match(run0.properties['job.settled'], /^yes: .*replaced by/, 'the job settled once the replacement ran');
    const events = readFileSync(
      (run0.artifacts as { name: string; path: string }[]).find((a) => a.name === 'events.ndjson')!.path,
      'utf8',
    );
    t.match(events, /"Status":"down"/, 'the node going down is in the recorded stream');
    t.match(events, /"ClientStatus":"lost"/, 'so is the alloc marked lost');
  },
);

t.test(
  'a kind the scenario cannot do is refused before anything is created (exit 2), naming the kinds it can',
  async (t) => {
    for (const kind of ['agent-kill', 'partition']) {
      const r = await run(t, ['--reboot', kind], 'cni-ipam-reboot');
      t.equal(r.code, 2, `${kind}: exit 2`);
      t.match(
        r.err(),
        new RegExp(
          `--reboot \\(reboot.kind\\): cannot be done here: cni-ipam-reboot runs no Nomad agent to (kill|cut off) \\(got "${kind}"; fix: use one of: graceful, hard, panic, power-off, power-loss-all\\)`,
        ),
      );
      t.same(r.s.lab.commands['client'], [], 'no command ran: nothing was created');
    }
    const bad = await run(t, ['--reboot', 'meteor']);
    t.equal(bad.code, 2);
    t.match(
      bad.err(),
      /--reboot: must be one of graceful, hard, panic, power-off, power-loss-all, agent-kill, .*, link-loss \(got "meteor"/,
    );
  },
);

t.test(
  'panic and power-off on the stand-in lab reboot like the others (the real ones run in the VM tier)',
  async (t) => {
    const r = await run(t, ['--reboot', 'power-off', '--off-for', '0']);
    t.equal(r.code, 0, `exit 0 (${r.err().slice(-400)})`);
    const html = readFileSync(join(r.dir, 'reports', r.read().runId, 'report.html'), 'utf8');
    t.match(html, /powered off/);
    t.match(html, /power-off reboot requested/);
  },
);

/** The shipped job with a group `disconnect` block, written outside the run's test dir (run() makes that one anew). */
function withDisconnect(t: Test, block: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'nrh-disconnect-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const hcl = readFileSync('jobs/bridge-exec-http.nomad.hcl', 'utf8').replace(
    '    network {',
    `    disconnect {\n${block}\n    }\n\n    network {`,
  );
  writeFileSync(join(dir, 'disconnect.nomad.hcl'), hcl);
  return join(dir, 'disconnect.nomad.hcl');
}

/** A partition past heartbeat_grace (300ms) of the job with `disconnect { lost_after }`; the run must exit 0. */
async function partitionWithDisconnect(t: Test, lostAfter: string, partitionFor: string) {
  const job = withDisconnect(t, `      lost_after = "${lostAfter}"`);
  const flags = ['--job', job, '--reboot', 'partition', '--partition-for', partitionFor, '--heartbeat-grace', '300ms'];
  const r = await run(t, flags);
  const run0 = r.read();
  const v = (id: string) => (run0.verdicts as V[]).find((x) => x.id === id)!;
  t.equal(r.code, 0, `exit 0: ${JSON.stringify((run0.verdicts as V[]).filter((x) => x.status === 'failed'))}`);
  return { run0, v };
}

t.test(
  'partition past heartbeat_grace with disconnect { lost_after }: the alloc goes unknown, then reconnects in place, as its policy says',
  async (t) => {
    const { run0, v } = await partitionWithDisconnect(t, '1m', '1s');
    t.equal(
      run0.properties['job.disconnect'],
      'web: disconnect { lost_after = "1m", replace = true, reconcile = "best_score" }',
      "the policy as the run's Nomad line (the stand-in's 1.9.7) reads the canonical job",
    );
    t.match(v('alloc-restored'), {
      status: 'passed',
      message:
        /went unknown at \S+ \(node disconnected\), then reconnected in place on node \S+; policy: disconnect \{ lost_after = "1m", .*\} of group web \(Nomad before 1\.10\)/,
    });
    t.match(v('task-restarted'), {
      status: 'passed',
      message: /kept running through partition/,
    });
    t.match(v('client-rebooted'), {
      status: 'passed',
      message: /partition of 1s <= heartbeat_grace 0\.3s \+ lost_after 60s/,
    });
    const events = readFileSync(
      (run0.artifacts as { name: string; path: string }[]).find((a) => a.name === 'events.ndjson')!.path,
      'utf8',
    );
    t.match(events, /"Status":"disconnected"/, 'the node disconnected, not down, in the recorded stream');
    t.match(events, /"ClientStatus":"unknown"/, 'the alloc unknown');
    t.notMatch(events, /"ClientStatus":"lost"/, 'and never lost');
    t.match(run0.properties['job.settled'], /^yes/, 'the job settled with nothing pending (the blocked eval gave way)');
  },
);

t.test(
  'partition past heartbeat_grace + lost_after: unknown, then lost and replaced, which the policy asks for',
  async (t) => {
    const { v } = await partitionWithDisconnect(t, '1s', '3s');
    t.match(v('alloc-restored'), {
      status: 'passed',
      message:
        /^replaced, as expected \(partition of 3s > heartbeat_grace 0\.3s \+ lost_after 1s\): .*it was unknown from \S+ and lost once lost_after 1s ran out: lost and replaced is what disconnect \{ lost_after = "1s"/,
    });
    t.match(v('task-restarted'), { status: 'passed', message: /replacement .* task is running/ });
  },
);
