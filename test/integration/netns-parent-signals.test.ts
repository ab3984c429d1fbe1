// The CLI that re-runs itself inside a network namespace (lab.hosts_netns here; the lab's own namespace takes the same
// path) and a signal to it: the parent forwards the signal and waits for its child's teardown and reports, its exit
// code the child's. Real processes, a real namespace (needs root and iproute2) and a real sshd in it, the one host the
// run checks it can reach (a labless user scenario asks nothing more of it). The VM tier saw the parent exit 130 at once while its child still
// tore the lab down, the report not yet written when the caller read it.
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI_COMPILED } from '../helpers/cli-child.js';
import { privateEnv } from '../helpers/cli-tsx.js';
import { writeScenarioWithBody } from '../helpers/labless-scenario.js';
import { hostInNetns, hostInNetnsMissing } from '../helpers/host-in-netns.js';

const missing = hostInNetnsMissing();

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

t.setTimeout(5 * 60_000);

t.test(
  'a signal to the CLI that re-ran itself in a namespace: forwarded once, the parent exits with the child, after its reports',
  { skip: missing ?? false },
  async (t) => {
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      await t.test(sig, async (t) => {
        const ns = `nrh-sig-${process.pid}-${sig.slice(3).toLowerCase()}`;
        const dir = t.testdir({});
        const config = await hostInNetns(t, ns, dir);
        const usc = join(dir, 'usc');
        // the run says where it runs, then waits 4 s (a scenario's run() is awaited to its end: the child's
        // teardown ends seconds after the signal, and the parent must wait for it)
        // Note: a JavaScript scenario, so the compiled CLI runs it without tsx's loader (0.6 s of CPU less a process)
        writeScenarioWithBody(
          usc,
          'waits',
          `const { writeFileSync } = await import('node:fs');
           const { execFileSync } = await import('node:child_process');
           writeFileSync(${JSON.stringify(join(dir, 'child.json'))}, JSON.stringify({ pid: process.pid, ns: execFileSync('ip', ['netns', 'identify', String(process.pid)], { encoding: 'utf8' }).trim() }));
           await new Promise((r) => setTimeout(r, 4000));
           return judgeAll(CHECKS, {});`,
        );
        renameSync(join(usc, 'waits.ts'), join(usc, 'waits.mjs'));
        const parent = spawn(
          process.execPath,
          [
            CLI_COMPILED,
            'run',
            'waits',
            '--scenarios',
            usc,
            '--config',
            config,
            '--reports-dir',
            join(dir, 'reports'),
            '--report-json',
            join(dir, 'summary.json'),
            '--junit',
            join(dir, 'junit.xml'),
          ],
          { cwd: dir, env: privateEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stderr = '';
        let stdout = '';
        parent.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
        parent.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
        // Note: at the parent's 'exit', not its 'close': the child holds the same pipes, so 'close' waits for it anyway
        let atExit: { reports: boolean; childAlive: boolean } | undefined;
        let childPid: number | undefined;
        parent.on('exit', () => {
          atExit = {
            reports: existsSync(join(dir, 'summary.json')) && existsSync(join(dir, 'junit.xml')),
            childAlive: childPid !== undefined && alive(childPid),
          };
        });
        const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
          parent.on('close', (code, signal) => resolve({ code, signal })),
        );
        const deadline = Date.now() + 60_000;
        while (!existsSync(join(dir, 'child.json')) && Date.now() < deadline && parent.exitCode === null)
          await sleep(50);
        if (!t.ok(existsSync(join(dir, 'child.json')), 'the run started inside the namespace'))
          return void t.comment(stderr);
        const child = JSON.parse(readFileSync(join(dir, 'child.json'), 'utf8')) as { pid: number; ns: string };
        t.equal(child.ns, ns, 'the scenario ran inside the namespace');
        t.not(child.pid, parent.pid, 'in a child of the CLI that was started');
        childPid = child.pid;
        parent.kill(sig);
        const r = await closed;
        t.equal(r.signal, null, `the parent is not killed by the signal (${stderr.slice(-400)})`);
        t.equal(r.code, 130, 'exit 130 (interrupted), the child’s');
        t.equal(atExit?.childAlive, false, 'the child had ended when the parent exited');
        t.equal(atExit?.reports, true, 'summary.json and junit.xml were written when the parent exited');
        t.match(stderr, new RegExp(`${sig} received: cleaning up`), 'the child took it as an interrupt');
        t.equal(stderr.match(/received: cleaning up/g)?.length, 1, 'once: the parent forwards it, once');
        t.notMatch(stderr, /^error: interrupted by/m, 'the parent did not end on its own with "interrupted"');
        t.match(stdout, /reports: /);
        if (atExit?.reports)
          t.match(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')), { interrupted: true, exitCode: 130 });
      });
    }
  },
);
