// SshMachine against a real OpenSSH sshd on 127.0.0.1: exec, stdin, sudo prefix, deadline kill, SFTP, tunnel, reconnect.
import t, { type Test } from 'tap';
import http from 'node:http';
import { readFileSync, statSync, writeFileSync, chmodSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { SshMachine } from '../../lib/ssh/client.js';
import { connectOnce } from '../../lib/ssh/connect.js';
import net from 'node:net';
import ssh2 from 'ssh2';
import { sh } from '../../lib/shell/quote.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { type Probe, waitFor } from '../../lib/time/wait-for.js';
import { HarnessError, TimeoutError } from '../../lib/errors.js';
import type { LogEvent } from '../../lib/log/events.js';
import { consoleLogger } from '../../lib/log/format.js';
import { redactingWriter } from '../../lib/log/redact.js';
import { sshdForTest, freePort } from '../helpers/sshd.js';
import { rejection } from '../helpers/rejection.js';

const sshd = await sshdForTest(t);
if (sshd) {
  const events: LogEvent[] = [];
  const m = new SshMachine({
    role: 'server',
    name: 'testbox',
    target: sshd.target,
    logger: (e) => events.push(e),
  });
  t.teardown(() => m.disconnect());
  const d = () => deadlineIn(10_000);

  t.test('exec returns exit code, stdout and stderr separately', async (t) => {
    const r = await m.exec('echo out; echo err >&2; exit 3', { deadline: d() });
    t.equal(r.code, 3);
    t.equal(r.stdout, 'out\n');
    t.equal(r.stderr, 'err\n');
    t.ok(
      events.some((e) => e.kind === 'ssh' && e.exitCode === 3),
      'logged an ssh event with the exit code',
    );
  });

  t.test('stdin reaches the remote command', async (t) => {
    const r = await m.exec('cat; echo; wc -c < /dev/null', { deadline: d(), stdin: 'line one\nline two' });
    t.equal(r.stdout, 'line one\nline two\n0\n');
  });

  t.test('sh`` quoting survives a real shell byte for byte', async (t) => {
    const values = [
      '',
      'a b',
      "it's",
      '$HOME',
      '`id`',
      'x\ny',
      '"q"',
      '*',
      'ünïcødé ✓',
      '-n',
      'a=b',
      '~root',
      '\\',
      'tab\there',
      "'",
    ];
    const r = await m.exec(sh`printf '%s\\0' ${values}`, { deadline: d() });
    t.same(r.stdout.split('\0').slice(0, -1), values, 'every value came back unchanged');
  });

  t.test('a secret in a command reaches the console only through the one redactor', async (t) => {
    const shown: string[] = [];
    // Note: as the CLI wires it: the machine's logger writes to the console stream, which redacts.
    const log = consoleLogger(
      redactingWriter(
        (s) => void shown.push(s),
        () => ['s3cr3t-token'],
      ),
      { verbose: true, quiet: false, color: false },
    );
    const seen = new SshMachine({ role: 'server', name: 'testbox', target: sshd.target, logger: log });
    t.teardown(() => seen.disconnect());
    await seen.exec('echo s3cr3t-token', { deadline: d() });
    t.notMatch(shown.join(''), /s3cr3t-token/, 'token never on the console');
    t.match(shown.join(''), /testbox\$ echo \[REDACTED\]/, 'the logged command shows the marker');
  });

  t.test('sudo option runs `sudo -n sh -c <quoted cmd>` (fake sudo first on the remote PATH)', async (t) => {
    const argsFile = path.join(sshd.dir, 'sudo-args');
    writeFileSync(
      path.join(sshd.binDir, 'sudo'),
      `#!/bin/sh\nprintf '%s\\n' "$@" > ${argsFile}\n[ "$1" = -n ] || exit 99\nshift\nexec "$@"\n`,
    );
    chmodSync(path.join(sshd.binDir, 'sudo'), 0o755);
    const r = await m.exec(`echo "$((1+1))" 'a b' | tr a A`, { deadline: d(), sudo: true });
    t.equal(r.code, 0);
    t.equal(r.stdout, '2 A b\n');
    t.same(readFileSync(argsFile, 'utf8').split('\n').slice(0, 3), ['-n', 'sh', '-c']);
  });

  t.test('deadline closes the channel, the remote command ends, and the error names it', async (t) => {
    // Note: sshd refuses signal requests for root sessions ("session signalling requires privilege separation"),
    // and these tests log in as root; the loop below writes output, so it dies of SIGPIPE once the channel closes.
    // Note: the loop would run 5 minutes: ending within 20 s is the deadline's doing, with room for a loaded host
    const loop = 'i=0; while [ $i -lt 3000 ]; do echo tick-6125; sleep 0.1; i=$((i+1)); done';
    const started = Date.now();
    const err = await rejection(m.exec(loop, { deadline: deadlineIn(800) }));
    t.type(err, TimeoutError);
    t.match(String(err), /testbox: i=0; while .*tick-6125/);
    t.ok(Date.now() - started < 20_000, 'returned soon after the deadline, not at the end of the loop');
    const alive = () =>
      readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .some((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('echo tick-6125');
          } catch {
            return false;
          }
        });
    // Note: polled, not looked at once after a fixed 1.5 s: the loop dies at its next echo after sshd closes the
    // channel, which a loaded host can take longer to get to; left running, it would outlive these 20 s by minutes
    const gone = await waitFor(
      'the remote loop gone',
      async (): Promise<Probe<true>> =>
        alive() ? { done: false, reason: 'still running' } : { done: true, value: true },
      { deadline: deadlineIn(20_000), intervals: [100] },
    ).catch((e: unknown) => String(e));
    t.equal(gone, true, 'remote loop is gone');
    const r = await m.exec('echo still usable', { deadline: d() });
    t.equal(r.stdout, 'still usable\n', 'connection still usable afterwards');
  });

  t.test('upload and writeFile set content and mode', async (t) => {
    const local = path.join(sshd.dir, 'local.bin');
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
    writeFileSync(local, bytes);
    const remote = path.join(sshd.dir, 'remote.bin');
    await m.upload(local, remote, { deadline: d(), mode: 0o750 });
    t.same(readFileSync(remote), bytes);
    t.equal(statSync(remote).mode & 0o777, 0o750);
    const f = path.join(sshd.dir, 'written.txt');
    await m.writeFile(f, 'hello\n', { deadline: d(), mode: 0o600 });
    t.equal(readFileSync(f, 'utf8'), 'hello\n');
    t.equal(statSync(f).mode & 0o777, 0o600);
    await t.rejects(m.writeFile('/nonexistent-dir/x', 'x', { deadline: d() }), /write \/nonexistent-dir\/x/);
  });

  t.test('bootId reads the boot id', async (t) => {
    const id = await m.bootId({ deadline: d() });
    t.match(id, /^[0-9a-f-]{36}$/);
  });

  t.test('tunnel carries many HTTP requests, a long poll, and survives an sshd restart', async (t) => {
    const server = http.createServer((req, res) => {
      if (req.url?.startsWith('/poll')) setTimeout(() => res.end('polled'), 1500);
      else res.end(`echo ${req.url}`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    t.teardown(() => new Promise<void>((r) => server.close(() => r())));
    const port = (server.address() as { port: number }).port;
    const tunnel = await m.forward('127.0.0.1', port, { deadline: d() });
    t.teardown(() => tunnel.close());
    const agent = new http.Agent({ keepAlive: true });
    t.teardown(() => agent.destroy());
    const get = (p: string) =>
      new Promise<string>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: tunnel.localPort, path: p, agent }, (res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve(body));
          })
          .on('error', reject);
      });
    const poll = get('/poll?index=5&wait=2s');
    for (let i = 0; i < 5; i++) t.equal(await get(`/n/${i}`), `echo /n/${i}`);
    t.same(await Promise.all([get('/a'), get('/b'), get('/c')]), ['echo /a', 'echo /b', 'echo /c']);
    t.equal(await poll, 'polled', 'long poll answered through the tunnel');
    await sshd.stop();
    setTimeout(() => void sshd.start(), 700);
    const fresh = new http.Agent({ keepAlive: false });
    t.teardown(() => fresh.destroy());
    const once = () =>
      new Promise<string>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: tunnel.localPort, path: '/after-restart', agent: fresh }, (res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve(body));
          })
          .on('error', reject);
      });
    // Note: a socket accepted before the client has noticed the drop is forwarded on the dying connection and reset
    // (1 run in 10 here); the harness's waits poll again after such an error. The next socket must get through.
    const resets: string[] = [];
    const again = await once().catch(async (err: Error) => (resets.push(err.message), once()));
    t.equal(again, 'echo /after-restart', 'new socket after restart goes through a new connection');
    t.ok(
      resets.every((m) => /socket hang up|ECONNRESET/.test(m)),
      `at most one socket, racing the drop, was reset (${resets.join('; ') || 'none'})`,
    );
  });

  t.test('exec reconnects after sshd dropped every connection', async (t) => {
    await m.exec('true', { deadline: d() });
    await sshd.stop();
    setTimeout(() => void sshd.start(), 1000);
    const r = await m.exec('echo back', { deadline: deadlineIn(15_000) });
    t.equal(r.stdout, 'back\n');
  });

  t.test('unreachable target: TimeoutError names the target and the last error', async (t) => {
    const closed = await freePort();
    const bad = new SshMachine({
      role: 'x',
      name: 'nowhere',
      target: { ...sshd.target, host: 'nowhere', port: closed },
      connectTimeoutMs: 500,
    });
    const err = await rejection(bad.exec('true', { deadline: deadlineIn(1500) }));
    t.type(err, TimeoutError);
    t.match(String(err), /SSH to nowhere/);
    t.match(String(err), /ECONNREFUSED/);
  });

  t.test(
    'disconnect frees the socket at once even when the peer never answers again (a VM being reset or destroyed)',
    async (t) => {
      const frozen = new SshMachine({ role: 'x', name: 'frozen', target: sshd.target });
      t.equal((await frozen.exec('true', { deadline: d() })).code, 0);
      const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
      const before = sockets();
      // Stop sshd's per-connection processes: the kernel still ACKs, but nothing ever closes the connection from that
      // side, as with a VM that is gone. A half-close (end()) would leave the socket open; the process could not exit.
      const children = execFileSync('pgrep', ['-P', String(sshd.pid())], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .filter(Boolean)
        .map(Number);
      for (const pid of children) process.kill(pid, 'SIGSTOP');
      t.teardown(() => {
        for (const pid of children)
          try {
            process.kill(pid, 'SIGCONT');
          } catch {
            /* gone */
          }
      });
      await frozen.disconnect();
      // Note: polled for 10 s, not looked at once after 200 ms: a half-closed socket would stay for as long as the peer
      // stays frozen (the test's whole life), a destroyed one is gone once the loop has run its close
      const freed = await waitFor(
        "the connection's socket gone",
        async (): Promise<Probe<true>> =>
          sockets() === before - 1 ? { done: true, value: true } : { done: false, reason: `${sockets()} sockets` },
        { deadline: deadlineIn(10_000), intervals: [20] },
      ).catch((e: unknown) => String(e));
      t.equal(freed, true, "the connection's socket is gone");
    },
  );

  t.test('missing private key fails fast with the files tried', async (t) => {
    const bad = new SshMachine({
      role: 'x',
      name: 'nokey',
      target: { ...sshd.target, identityFiles: ['/nonexistent/key'] },
    });
    const started = Date.now();
    const err = await rejection(bad.exec('true', { deadline: deadlineIn(60_000) }));
    t.type(err, HarnessError);
    t.match(String(err), /no readable private key; tried \/nonexistent\/key \(ENOENT\)/);
    t.ok(Date.now() - started < 30_000, 'no retry loop for a missing key (the deadline: 60 s)');
  });
}

/**
 * A fresh ed25519 private key that ssh2 can parse back: about 2 in 1000 of the keys ssh2's own generateKeyPairSync
 * makes fail its parseKey ("Malformed OpenSSH private key"; measured 4 of 2000 here), which made these tests flaky.
 */
function parsableKey(): Buffer {
  for (;;) {
    const key = Buffer.from(ssh2.utils.generateKeyPairSync('ed25519').private);
    if (!(ssh2.utils.parseKey(key) instanceof Error)) return key;
  }
}

/** A TCP listener on loopback that accepts and never speaks SSH, a target for it, and a key. */
async function mutePeer(t: Test) {
  const silent = net.createServer((sock) => t.teardown(() => sock.destroy()));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => new Promise<void>((r) => silent.close(() => r())));
  const port = (silent.address() as net.AddressInfo).port;
  const target = {
    host: 'mute',
    hostName: '127.0.0.1',
    port,
    user: 'vagrant',
    identityFiles: [],
    strictHostKeyChecking: false,
    options: {},
  };
  return { port, target, key: parsableKey() };
}

t.test(
  'a peer that accepts TCP but never speaks SSH: the timeout is said as a duration, not a raw float',
  async (t) => {
    const { port, target, key } = await mutePeer(t);
    const err = (await rejection(connectOnce(target, key, { timeoutMs: 1248.928910000017 }))) as Error;
    t.equal(err.message, `ssh vagrant@127.0.0.1:${port}: no SSH handshake within 1.2s`);
  },
);

t.test(
  'an attempt whose signal has already fired ends at once, saying aborted (ssh2 is loaded first, asynchronously)',
  async (t) => {
    const { port, target, key } = await mutePeer(t);
    const ac = new AbortController();
    ac.abort();
    const err = (await rejection(connectOnce(target, key, { timeoutMs: 30_000, signal: ac.signal }))) as Error;
    t.equal(err.message, `ssh vagrant@127.0.0.1:${port}: aborted`, 'not the 30 s handshake timeout');
  },
);
