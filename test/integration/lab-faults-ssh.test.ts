// sshd on the "server" dies mid-run (issue 15), with a REAL OpenSSH sshd on loopback: killed in the middle of a remote
// command, and frozen (SIGSTOP: the peer keeps its TCP connection open but answers nothing, like a hung host). Each ends
// in an infrastructure error (exit 3) within a bound set by the SSH layer (the connection drop, ssh2's keepalive: 5 s x
// 3), never a hang; through runScenario the run records the error and its cleanup runs.
import t, { type Test } from 'tap';
import { performance } from 'node:perf_hooks';
import { SshMachine } from '../../lib/ssh/client.js';
import { SshError } from '../../lib/ssh/connect.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { EXIT, HarnessError, TimeoutError } from '../../lib/errors.js';
import { runScenario } from '../../lib/run/runner.js';
import { exitCodeOf } from '../../lib/report/outcome.js';
import { DEFAULTS } from '../../lib/config/schema.js';
import type { Scenario, ScenarioEnv } from '../../lib/run/scenario.js';
import { childPids, sshdMissing, startSshd, type TestSshd } from '../helpers/sshd.js';
import { rejection } from '../helpers/rejection.js';

const missing = sshdMissing();
if (missing) t.plan(0, missing);
else {
  t.setTimeout(180_000);
  // One test at a time: a test that kills its sshd then expects its port to refuse, and another test's fresh sshd can
  // be given that freed port (seen: the reconnect got an answer where a refusal was due).

  /** A fresh sshd per test: each test kills or freezes its own. */
  const fresh = async (t: Test): Promise<{ sshd: TestSshd; m: SshMachine }> => {
    const sshd = await startSshd();
    const m = new SshMachine({ role: 'server', name: 'server-vm', target: sshd.target, connectTimeoutMs: 2000 });
    t.teardown(async () => {
      await m.disconnect();
      await sshd.dispose();
    });
    return { sshd, m };
  };
  /** Every process below `pid` (sshd's per-connection processes and the session's shell and command). */
  const descendants = (pid: number): number[] => childPids(pid).flatMap((c) => [c, ...descendants(c)]);
  const signalAll = (sshd: TestSshd, sig: NodeJS.Signals) => {
    for (const p of [sshd.pid()!, ...descendants(sshd.pid()!)]) {
      try {
        process.kill(p, sig);
      } catch {
        /* gone */
      }
    }
  };

  t.test(
    'sshd killed in the middle of a command: the command ends at once with the connection dropped; reconnecting ends at its deadline naming the refusal',
    async (t) => {
      const { sshd, m } = await fresh(t);
      t.equal((await m.exec('echo up', { deadline: deadlineIn(10_000) })).stdout, 'up\n', 'connected');
      // the stop drops the connection first, then ends the listener: the reconnect below waits for both
      const stopped = new Promise<void>((r) => setTimeout(() => void sshd.stop().then(r), 500));
      const t0 = performance.now();
      const err = await rejection(m.exec('sleep 30', { deadline: deadlineIn(60_000) }));
      const ms = performance.now() - t0;
      t.ok(err instanceof SshError, `an SshError (${String(err)})`);
      t.match((err as Error).message, /ssh server-vm: connection dropped while running sleep 30/);
      t.equal((err as HarnessError).exitCode, EXIT.INFRA, 'exit code 3');
      t.ok(ms < 20_000, `ended ${Math.round(ms)} ms after the command started, not at its 60 s deadline`);
      await stopped;
      const t1 = performance.now();
      const again = await rejection(m.exec('true', { deadline: deadlineIn(3000) }));
      const ms1 = performance.now() - t1;
      t.ok(again instanceof TimeoutError, 'the next command waits for SSH until its deadline');
      t.match(
        (again as Error).message,
        new RegExp(
          `waiting for SSH to testbox \\(.*@127\\.0\\.0\\.1:${sshd.port}\\): gave up after .*; last: error: .*ECONNREFUSED`,
        ),
      );
      t.ok(ms1 >= 2900 && ms1 < 12_000, `bounded by its deadline (${Math.round(ms1)} ms)`);
    },
  );

  t.test(
    'sshd frozen (SIGSTOP) mid-command: ssh2 keepalive ends the command within ~20 s, not at its deadline',
    async (t) => {
      const { sshd, m } = await fresh(t);
      t.equal((await m.exec('echo up', { deadline: deadlineIn(10_000) })).stdout, 'up\n');
      t.teardown(() => signalAll(sshd, 'SIGCONT'));
      setTimeout(() => signalAll(sshd, 'SIGSTOP'), 500);
      const t0 = performance.now();
      const err = await rejection(m.exec('sleep 120', { deadline: deadlineIn(110_000) }));
      const ms = performance.now() - t0;
      t.ok(err instanceof HarnessError, `a HarnessError (${String(err)})`);
      t.notOk(err instanceof TimeoutError, 'not the command deadline');
      t.match(
        (err as Error).message,
        /connection dropped while running sleep 120 \(Keepalive timeout\)/,
        'names the keepalive',
      );
      t.equal((err as HarnessError).exitCode, EXIT.INFRA);
      t.ok(ms > 10_000 && ms < 40_000, `ended by the keepalive after ${Math.round(ms / 1000)} s (5 s x 3 unanswered)`);
    },
  );

  t.test(
    'through runScenario: sshd dies during a step, the run ends as an infrastructure error (exit 3) and cleans up',
    async (t) => {
      const { sshd, m } = await fresh(t);
      const dir = t.testdir();
      const config = { ...structuredClone(DEFAULTS), reports: { ...DEFAULTS.reports, dir } };
      const env: ScenarioEnv = {
        config,
        upLab: async () => {
          throw new Error('unused');
        },
        provisionNomad: async () => {
          throw new Error('unused');
        },
        connectNomad: async () => {
          throw new Error('unused');
        },
      };
      const torn: string[] = [];
      const scenario: Scenario = {
        name: 'sshd-dies',
        summary: 'a remote command while sshd dies',
        needsNomad: false,
        checks: [
          {
            id: 'done',
            title: 'done',
            passesWhen: 'the command finished',
            judge: () => ({ status: 'passed', message: 'ok' }),
          },
        ],
        async run(ctx) {
          ctx.cleanup.defer('close the SSH connection', async () => void (torn.push('ssh'), await m.disconnect()));
          await ctx.step(
            'run a long command on the server',
            async (d) => {
              // connected first, so sshd dies during the command, not before the connection (a loaded machine can
              // take longer than a fixed delay to get here)
              await m.exec('true', { deadline: d });
              setTimeout(() => void sshd.stop(), 500);
              return m.exec('sleep 30', { deadline: d });
            },
            { timeoutMs: 60_000 },
          );
          return [{ id: 'done', title: 'done', status: 'passed', message: 'ok', evidence: [] }];
        },
      };
      const t0 = performance.now();
      const { record } = await runScenario({
        runId: 'r-sshd',
        scenario,
        env,
        config,
        logger: () => {},
        signal: new AbortController().signal,
        artifactDir: dir,
      });
      t.ok(performance.now() - t0 < 10_000, 'no hang');
      t.equal(record.outcome, 'error');
      t.equal(exitCodeOf([record]), EXIT.INFRA, 'exit 3');
      t.match(record.error, {
        step: 'run a long command on the server',
        message: /connection dropped while running sleep 30/,
      });
      t.match(record.verdicts, [
        {
          id: 'done',
          label: 'skipped',
          message: /not reached: the run broke in step "run a long command on the server"/,
        },
      ]);
      t.same(torn, ['ssh'], 'cleanup ran');
    },
  );
}
