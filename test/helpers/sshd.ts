// A real OpenSSH sshd on 127.0.0.1 for integration tests: temp host key, one authorized user key, stopped by PID.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { SshTarget } from '../../lib/shell/target.js';
import type { Test } from 'tap';

const SSHD_CANDIDATES = ['/usr/sbin/sshd', '/usr/bin/sshd', '/usr/local/sbin/sshd'];

/** Why real-sshd tests cannot run here, or undefined when they can. */
export function sshdMissing(): string | undefined {
  if (!SSHD_CANDIDATES.some((p) => existsSync(p))) return 'sshd not installed (apt-get install openssh-server)';
  try {
    execFileSync('ssh-keygen', ['-?'], { stdio: 'ignore' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return 'ssh-keygen not installed (apt-get install openssh-client)';
  }
  return undefined;
}

/** A free TCP port on 127.0.0.1 (bound then released). */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface TestSshd {
  dir: string;
  port: number;
  target: SshTarget;
  /** a directory first on the PATH of remote commands (fake `sudo`, ...) */
  binDir: string;
  pid(): number | undefined;
  /** sshd's own log (-e) so far */
  log(): string;
  start(): Promise<void>;
  /** kill the per-connection processes of our sshd (by PID): every client sees its connection drop */
  dropConnections(): void;
  /** drop connections and stop the listener */
  stop(): Promise<void>;
  /** stop, remove the temp dir */
  dispose(): Promise<void>;
}

/** PIDs whose parent is `pid` (sshd's per-connection processes), read from /proc. */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(e));
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

async function waitFor(ok: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`${what}: not listening within ${ms}ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function waitListening(port: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((r) => {
      const s = net.connect(port, '127.0.0.1', () => (s.destroy(), r(true)));
      s.on('error', () => r(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`sshd did not listen on 127.0.0.1:${port} within ${ms}ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Generate keys and config in a temp dir and start `sshd -D -e` on a free loopback port; with `netns`, inside that
 * namespace (its loopback brought up) on port 22, where only a process in it reaches it.
 */
export async function startSshd(o: { netns?: string } = {}): Promise<TestSshd> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nrh-sshd-'));
  const binDir = path.join(dir, 'bin');
  mkdirSync(binDir);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'host_ed25519')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'user_ed25519')]);
  writeFileSync(path.join(dir, 'authorized_keys'), readFileSync(path.join(dir, 'user_ed25519.pub')));
  chmodSync(path.join(dir, 'authorized_keys'), 0o600);
  mkdirSync('/run/sshd', { recursive: true }); // privilege separation dir sshd insists on
  if (o.netns) execFileSync('ip', ['netns', 'exec', o.netns, 'ip', 'link', 'set', 'lo', 'up']);
  const port = o.netns ? 22 : await freePort();
  const sshdBin = SSHD_CANDIDATES.find((p) => existsSync(p))!;
  const cfg = path.join(dir, 'sshd_config');
  writeFileSync(
    cfg,
    [
      `ListenAddress 127.0.0.1`,
      `HostKey ${dir}/host_ed25519`,
      `AuthorizedKeysFile ${dir}/authorized_keys`,
      `PidFile ${dir}/sshd.pid`,
      `PermitRootLogin prohibit-password`,
      `PubkeyAuthentication yes`,
      `PasswordAuthentication no`,
      `KbdInteractiveAuthentication no`,
      `UsePAM no`,
      `StrictModes no`,
      `LogLevel ${process.env.NRH_SSHD_LOGLEVEL ?? 'VERBOSE'}`,
      `Subsystem sftp internal-sftp`,
      // SHLVL=1: Debian's bash sources ~/.bashrc in a shell sshd starts only at level 1; a developer's rc file (pyenv,
      // cargo: 0.1 s of CPU per command here) would run for every remote command and put its PATH before binDir
      `SetEnv SHLVL=1 PATH=${binDir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
      '',
    ].join('\n'),
  );
  let child: ChildProcess | undefined;
  let logText = '';
  const t: TestSshd = {
    dir,
    port,
    binDir,
    target: {
      host: 'testbox',
      hostName: '127.0.0.1',
      port,
      user: os.userInfo().username,
      identityFiles: [path.join(dir, 'user_ed25519')],
      strictHostKeyChecking: false,
      options: {},
    },
    pid: () => child?.pid,
    log: () => logText,
    async start() {
      const argv = [sshdBin, '-D', '-e', '-f', cfg, '-p', String(port)];
      const [file, ...args] = o.netns ? ['ip', 'netns', 'exec', o.netns, ...argv] : argv;
      child = spawn(file!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr!.on('data', (b: Buffer) => (logText += b.toString()));
      // Note: from another namespace the port cannot be tried; sshd says when it listens
      if (o.netns)
        await waitFor(() => /Server listening on 127\.0\.0\.1 port/.test(logText), 5000, 'sshd in its netns');
      else await waitListening(port, 5000);
    },
    dropConnections() {
      if (child?.pid === undefined) return;
      for (const p of childPids(child.pid)) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
    },
    async stop() {
      t.dropConnections();
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null) return;
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await gone;
    },
    async dispose() {
      await t.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await t.start();
  return t;
}

/**
 * The sshd of an integration test file: a visible skip of the whole file (plan 0 with the reason) when OpenSSH is
 * missing, else a started sshd torn down with the file, and the file's timeout raised for real SSH round trips.
 */
export async function sshdForTest(t: Test): Promise<TestSshd | undefined> {
  const missing = sshdMissing();
  if (missing) {
    t.plan(0, missing);
    return undefined;
  }
  t.setTimeout(120_000);
  const sshd = await startSshd();
  t.teardown(() => sshd.dispose());
  return sshd;
}
