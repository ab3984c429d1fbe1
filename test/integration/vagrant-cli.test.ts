// The Vagrant adapter's error paths with a fake `vagrant` first on PATH; plus read-only calls to the real one when installed.
import t from 'tap';
import { readFileSync, existsSync } from 'node:fs';
import { spawn, execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVagrant, VagrantError } from '../../lib/vagrant/vagrant.js';
import { lockPath } from '../../lib/vagrant/lock.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { CommandError } from '../../lib/errors.js';
import type { LogEvent } from '../../lib/log/events.js';

const fakeBin = fileURLToPath(new URL('../fixtures/fake-bin', import.meta.url));
const fixture = (f: string) => fileURLToPath(new URL(`../fixtures/vagrant/${f}`, import.meta.url));
const withFake = (env: Record<string, string>) => ({ ...env, PATH: `${fakeBin}:${process.env.PATH ?? ''}` });

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(v)}`);
    },
    (e: unknown) => e,
  );
}

t.test('non-zero exit with error-exit: VagrantError with class, message, command and stderr tail', async (t) => {
  const v = createVagrant({ cwd: t.testdir(), env: withFake({ FAKE_VAGRANT_MODE: 'error' }), lockDir: t.testdir() });
  const err = await rejection(v.up(['nrh-1-server'], { provider: 'libvirt', deadline: deadlineIn(10_000) }));
  t.type(err, VagrantError);
  t.type(err, CommandError);
  const ve = err as VagrantError;
  t.equal(ve.errorClass, 'Vagrant::Errors::BoxNotFound');
  t.equal(ve.vagrantMessage, "The box 'vmlab/bookworm' could not be found, or\ncould not be accessed.");
  t.equal(ve.code, 1);
  t.match(
    ve.message,
    /command exited 1: VAGRANT_CWD=\S+ vagrant up nrh-1-server --provider libvirt --machine-readable/,
  );
  t.match(ve.message, /Vagrant::Errors::BoxNotFound: The box/);
  t.match(ve.message, /fake stderr line/);
});

t.test('ssh-config of a machine that is not running: SSHNotReady (recorded output)', async (t) => {
  const v = createVagrant({
    cwd: t.testdir(),
    env: withFake({
      FAKE_VAGRANT_MODE: 'fixture',
      FAKE_VAGRANT_FIXTURE: fixture('ssh-config-not-ready.mr.txt'),
      FAKE_VAGRANT_EXIT: '1',
    }),
  });
  const err = await rejection(v.sshConfig('nrh-abc123-client', { deadline: deadlineIn(10_000) }));
  t.equal((err as VagrantError).errorClass, 'Vagrant::Errors::SSHNotReady');
});

t.test('status and ssh-config parse recorded output', async (t) => {
  const st = createVagrant({
    cwd: t.testdir(),
    env: withFake({ FAKE_VAGRANT_MODE: 'fixture', FAKE_VAGRANT_FIXTURE: fixture('status-running.mr.txt') }),
  });
  t.same(await st.status({ deadline: deadlineIn(10_000) }), { server: 'running', client: 'shutoff' });
  const sc = createVagrant({
    cwd: t.testdir(),
    env: withFake({ FAKE_VAGRANT_MODE: 'fixture', FAKE_VAGRANT_FIXTURE: fixture('ssh-config-client.mr.txt') }),
  });
  const target = await sc.sshConfig('client', { deadline: deadlineIn(10_000) });
  t.equal(target.hostName, '10.198.0.232');
  t.same(target.identityFiles, ['/tmp/vmlab/.vagrant/machines/client/libvirt/private_key']);
});

t.test('ssh-config of every machine in one Vagrant start (recorded output of a two-machine lab)', async (t) => {
  const v = createVagrant({
    cwd: t.testdir(),
    env: withFake({ FAKE_VAGRANT_MODE: 'fixture', FAKE_VAGRANT_FIXTURE: fixture('ssh-config-all.mr.txt') }),
  });
  const texts = await v.sshConfigTexts(['r5fqul7d59825b-server', 'r5fqul7d59825b-client'], {
    deadline: deadlineIn(10_000),
  });
  t.same(Object.keys(texts), ['r5fqul7d59825b-server', 'r5fqul7d59825b-client']);
  t.match(texts['r5fqul7d59825b-server'], /^Host r5fqul7d59825b-server\n {2}HostName 10\.198\.0\.218\n/);
  t.match(texts['r5fqul7d59825b-client'], /^Host r5fqul7d59825b-client\n {2}HostName 10\.198\.0\.7\n/);
  t.notMatch(texts['r5fqul7d59825b-client'], /r5fqul7d59825b-server/, 'each machine its own block');
});

t.test('a hanging vagrant is killed at the deadline', async (t) => {
  const v = createVagrant({ cwd: t.testdir(), env: withFake({ FAKE_VAGRANT_MODE: 'hang' }) });
  const started = Date.now();
  const err = await rejection(v.status({ deadline: deadlineIn(700) }));
  t.type(err, CommandError);
  t.equal((err as CommandError).timedOut, true);
  t.ok(Date.now() - started < 5000, 'returned soon after the deadline');
});

t.test('two concurrent ups are serialized by the provider lock; env and live progress', async (t) => {
  const dir = t.testdir();
  const logFile = path.join(dir, 'calls.log');
  const events: LogEvent[] = [];
  const v = createVagrant({
    cwd: dir,
    env: withFake({ FAKE_VAGRANT_MODE: 'record', FAKE_VAGRANT_LOG: logFile }),
    lockDir: dir,
    logger: (e) => events.push(e),
  });
  await Promise.all([
    v.up(['a'], { provider: 'libvirt', deadline: deadlineIn(15_000) }),
    v.up(['b'], { provider: 'libvirt', deadline: deadlineIn(15_000) }),
  ]);
  const lines = readFileSync(logFile, 'utf8').trim().split('\n');
  t.same(
    lines.map((l) => l.split(' ')[0]),
    ['start', 'end', 'start', 'end'],
    'no overlap',
  );
  const t0 = lines.map((l) => BigInt(l.split(' ')[1]!));
  t.ok(t0[2]! >= t0[1]!, 'second start after first end');
  t.match(lines[0], new RegExp(`up [ab] --provider libvirt --machine-readable cwd=${dir} checkpoint=1 color=1`));
  t.notOk(existsSync(lockPath('libvirt', dir)), 'lock released');
  const outputs = events.flatMap((e) => (e.kind === 'output' ? [`${e.source}: ${e.line}`] : []));
  t.ok(
    outputs.includes('vagrant: ==> server: Creating domain'),
    'ui lines passed on live, as output (shown with --verbose)',
  );
  t.notOk(
    outputs.some((m) => m.includes('Progress')),
    'progress noise not passed on',
  );
  t.notOk(
    events.some((e) => e.kind === 'info' && e.message.startsWith('vagrant:')),
    'not as info lines every run would print',
  );
});

t.test('up waits for a lock held by another live process, then takes it over once that process is gone', async (t) => {
  const dir = t.testdir();
  // Note: timed from before the holder starts, so the holder's 1.5 s all fall inside however long this process
  // stalls after the spawn (timed from after it, a stall over the 100 ms the bound left would fail it); the 50 ms
  // under 1.5 s are the wall clock's, read in whole milliseconds
  const started = Date.now();
  const holder = spawn('sleep', ['1.5']);
  t.teardown(() => void (holder.exitCode === null && holder.kill()));
  require_pid(holder.pid);
  const { writeFileSync } = await import('node:fs');
  writeFileSync(lockPath('libvirt', dir), `${holder.pid}\n`);
  const logFile = path.join(dir, 'calls.log');
  const v = createVagrant({
    cwd: dir,
    env: withFake({ FAKE_VAGRANT_MODE: 'record', FAKE_VAGRANT_LOG: logFile }),
    lockDir: dir,
  });
  await v.up(['a'], { provider: 'libvirt', deadline: deadlineIn(15_000) });
  t.ok(Date.now() - started >= 1450, `waited for the other holder (${Date.now() - started}ms)`);
});

function require_pid(pid: number | undefined): asserts pid is number {
  if (pid === undefined) throw new Error('spawn failed');
}

const hasVagrant = (() => {
  try {
    execFileSync('vagrant', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

t.test(
  'real vagrant: --version and status in an empty directory',
  { skip: hasVagrant ? false : 'vagrant not installed' },
  async (t) => {
    const v = createVagrant({ cwd: t.testdir() });
    t.match(await v.version({ deadline: deadlineIn(30_000) }), /^Vagrant \d+\.\d+\.\d+/);
    const err = await rejection(v.status({ deadline: deadlineIn(30_000) }));
    t.equal((err as VagrantError).errorClass, 'Vagrant::Errors::NoEnvironmentError');
  },
);
