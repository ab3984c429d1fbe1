// createVagrantLab end to end without VMs: fake `vagrant` on PATH, both "machines" are a real local sshd, virsh injected.
import t from 'tap';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVagrantLab } from '../../lib/lab/vagrant/vagrant-lab.js';
import { runCommand, type RunCommand } from '../../lib/exec/run.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { sh } from '../../lib/shell/quote.js';
import { HarnessError } from '../../lib/errors.js';
import { sshdForTest } from '../helpers/sshd.js';
import { fakeLabSpec, fakeVagrantLab } from '../helpers/fake-vagrant-lab.js';

const sshd = await sshdForTest(t);
if (sshd) {
  const root = t.testdir({ fake: {}, serial: {}, 'Vagrantfile.src': '# fake Vagrantfile\n' });
  const fakeDir = path.join(root, 'fake');
  const vagrantDir = path.join(root, 'nrh-t1');
  const spec = fakeVagrantLab(root, 'nrh-t1', sshd);
  // What `vagrant up` prints while both machines come up (recorded shape), with this lab's machine names.
  const upFixture = new URL('../fixtures/vagrant/up-two-machines.mr.txt', import.meta.url);
  writeFileSync(path.join(fakeDir, 'up.out'), readFileSync(upFixture, 'utf8').replaceAll('r5fqul7d59825b', 'nrh-t1'));
  writeFileSync(path.join(fakeDir, 'status.out'), 'Current machine states:\n\nnrh-t1-server  running (libvirt)\n');
  writeFileSync(path.join(root, 'serial', 'nrh-t1-server-serial.log'), 'Debian GNU/Linux 12 ttyS0\n');
  writeFileSync(path.join(root, 'serial', 'other-vm-serial.log'), 'another run\n');
  mkdirSync(path.join(vagrantDir, '.vagrant/machines/nrh-t1-client/libvirt'), { recursive: true });
  writeFileSync(path.join(vagrantDir, '.vagrant/machines/nrh-t1-client/libvirt/id'), 'uuid-client\n');
  writeFileSync(path.join(sshd.binDir, 'sudo'), '#!/bin/sh\n[ "$1" = -n ] || exit 99\nshift\nexec "$@"\n');
  chmodSync(path.join(sshd.binDir, 'sudo'), 0o755);
  const bootFile = path.join(root, 'boot_id');
  writeFileSync(bootFile, 'boot-1\n');

  const virsh: string[][] = [];
  let leftover = 'nrh-t1-client\nother-vm\n';
  const run: RunCommand = async (file, args, opts) => {
    if (file !== 'virsh') return runCommand(file, args, opts);
    virsh.push([...args]);
    if (args.includes('reset')) writeFileSync(bootFile, 'boot-2\n');
    const out = args.includes('--name') ? leftover : '';
    return { code: 0, stdout: out, stderr: '', durationMs: 1 };
  };
  const calls = () =>
    existsSync(path.join(fakeDir, 'calls.log')) ? readFileSync(path.join(fakeDir, 'calls.log'), 'utf8') : '';
  const registered: { what: string; callsAtRegistration: string; keptAs: (() => string) | undefined }[] = [];
  const infos: string[] = [];
  const factory = createVagrantLab({
    logger: (e) => void (e.kind === 'info' && infos.push(e.message)),
    spec,
    vagrantDir,
    vagrantfile: path.join(root, 'Vagrantfile.src'),
    cleanup: (what, _fn, opts) => registered.push({ what, callsAtRegistration: calls(), keptAs: opts?.keptAs }),
    run,
    vagrant: {
      env: {
        PATH: `${fileURLToPath(new URL('../fixtures/fake-bin', import.meta.url))}:${process.env.PATH}`,
        FAKE_VAGRANT_MODE: 'dir',
        FAKE_VAGRANT_DIR: fakeDir,
      },
      lockDir: root,
    },
    ssh: { bootIdCommand: sh`cat ${bootFile}`, connectTimeoutMs: 2000 },
  });
  const lab = await factory.up({ deadline: deadlineIn(30_000) });
  t.teardown(() => Promise.all(Object.values(lab.machines).map((m) => m.disconnect())));

  t.test(
    'up writes the spec and Vagrantfile, registers destroy before `vagrant up`, runs up for every machine',
    async (t) => {
      t.same(JSON.parse(readFileSync(path.join(vagrantDir, 'lab-spec.json'), 'utf8')), spec);
      t.equal(readFileSync(path.join(vagrantDir, 'Vagrantfile'), 'utf8'), '# fake Vagrantfile\n');
      t.equal(registered.length, 1);
      t.match(registered[0]?.what, /vagrant destroy -f \(run nrh-t1/);
      t.notMatch(registered[0]?.callsAtRegistration, /^up /m, 'registered before up ran');
      t.match(calls(), /^up nrh-t1-server nrh-t1-client --provider libvirt --machine-readable$/m);
      t.same(calls().match(/^ssh-config.*$/gm), ['ssh-config --machine-readable'], 'one ssh-config for both machines');
      t.match(
        readFileSync(path.join(vagrantDir, 'ssh-config'), 'utf8'),
        /Host nrh-t1-server\n[\s\S]*Host nrh-t1-client\n/,
      );
    },
  );

  t.test('bring-up progress: a line per machine and milestone, named by its slot', async (t) => {
    t.same(
      infos.filter((m) => m.startsWith('  ')).map((m) => m.replace(/ \(\d+ s\)$/, '')),
      [
        '  server: creating its domain',
        '  client: creating its domain',
        '  server: booting',
        '  client: booting',
        '  server: booting: waiting for an address',
        '  client: booting: waiting for an address',
        '  server: booted, SSH ready',
        '  client: booted, SSH ready',
        '  server: up',
        '  client: up',
      ],
    );
    t.ok(
      infos.filter((m) => m.startsWith('  ')).every((m) => / \(\d+ s\)$/.test(m)),
      'each with the time since up started',
    );
  });

  t.test('machines are keyed by role and reachable over SSH', async (t) => {
    t.same(Object.keys(lab.machines).sort(), ['client', 'server']);
    t.equal(lab.machines.server?.name, 'nrh-t1-server');
    const r = await lab.machines.client!.exec('echo hi', { deadline: deadlineIn(10_000) });
    t.equal(r.stdout, 'hi\n');
  });

  t.test('hard reboot resets the domain by its UUID through virsh and waits for the new boot id', async (t) => {
    const rec = await lab.reboot('client', 'hard', { deadline: deadlineIn(30_000) });
    t.same(
      virsh.find((a) => a.includes('reset')),
      ['-c', 'qemu:///system', 'reset', 'uuid-client'],
    );
    t.equal(rec.bootIdBefore, 'boot-1');
    t.equal(rec.bootIdAfter, 'boot-2');
    const err = await lab.reboot('nope', 'hard', { deadline: deadlineIn(1000) }).catch((e: unknown) => e);
    t.match(String(err), /no machine named "nope" \(have server, client\)/);
  });

  t.test('evidence: vagrant status and serial logs (or why not)', async (t) => {
    const ev = await lab.collectEvidence({ deadline: deadlineIn(10_000) });
    t.match(ev['vagrant-status.txt'], /nrh-t1-server {2}running/);
    t.equal(ev['nrh-t1-server-serial.log'], 'Debian GNU/Linux 12 ttyS0\n');
    t.match(ev['nrh-t1-client-serial.log'], /not readable: .*nrh-t1-client-serial\.log: ENOENT/);
  });

  t.test(
    'describe gives the ssh and destroy commands; --keep reports that instead of the destroy it skipped',
    async (t) => {
      const d = lab.describe();
      t.match(d, /ssh -F \S*nrh-t1\/ssh-config nrh-t1-client/);
      t.match(d, /by hand: +env VAGRANT_CWD=\S*nrh-t1 vagrant destroy -f/);
      t.match(d, /log in: +reboot-harness login nrh-t1 \[server\|client\]/, 'the login command, with the slots');
      t.match(d, /destroy: +reboot-harness destroy nrh-t1 /);
      t.equal(
        registered[0]?.keptAs?.(),
        d,
        'what --keep prints at the end is the lab, not "vagrant destroy -f (run …)"',
      );
    },
  );

  t.test('destroy fails loudly when a VM of the run is left, and succeeds once none is', async (t) => {
    const err = await lab.destroy({ deadline: deadlineIn(10_000) }).catch((e: unknown) => e);
    t.type(err, HarnessError);
    t.match(String(err), /vagrant destroy left VMs of run nrh-t1: nrh-t1-client/);
    t.notMatch(String(err), /other-vm/, 'VMs of other runs are not ours');
    const hint = String((err as HarnessError).hint);
    t.ok(
      hint.includes('virsh -c qemu:///system undefine nrh-t1-client --remove-all-storage'),
      `hint names the fix: ${hint}`,
    );
    t.ok(existsSync(path.join(root, 'serial', 'nrh-t1-server-serial.log')), 'a failed destroy leaves the serial log');
    leftover = 'other-vm\n';
    await lab.destroy({ deadline: deadlineIn(10_000) });
    t.notOk(
      existsSync(path.join(root, 'serial', 'nrh-t1-server-serial.log')),
      'the serial log libvirt left is removed with the lab',
    );
    t.ok(existsSync(path.join(root, 'serial', 'other-vm-serial.log')), "another run's serial log stays");
    t.match(calls(), /^destroy -f nrh-t1-server nrh-t1-client --machine-readable$/m);
    await lab.destroy({ deadline: deadlineIn(10_000) });
    t.equal(calls().match(/^destroy /gm)?.length, 2, 'a finished destroy is not repeated');
  });
}

t.test(
  '--keep after a bring-up that failed: the lab never came up, only how to destroy it, no login or ssh lines (N24)',
  async (t) => {
    const root = t.testdir({ fake: {}, 'Vagrantfile.src': '# fake Vagrantfile\n' });
    const fakeDir = path.join(root, 'fake');
    writeFileSync(path.join(fakeDir, 'up.out'), 'An error occurred while bringing up the machines.\n');
    writeFileSync(path.join(fakeDir, 'up.rc'), '1\n');
    let keptAs: (() => string) | undefined;
    const factory = createVagrantLab({
      logger: () => {},
      spec: fakeLabSpec(root, 'nrh-k1'),
      vagrantDir: path.join(root, 'nrh-k1'),
      vagrantfile: path.join(root, 'Vagrantfile.src'),
      cleanup: (_what, _fn, opts) => {
        keptAs = opts?.keptAs;
      },
      vagrant: {
        env: {
          PATH: `${fileURLToPath(new URL('../fixtures/fake-bin', import.meta.url))}:${process.env.PATH}`,
          FAKE_VAGRANT_MODE: 'dir',
          FAKE_VAGRANT_DIR: fakeDir,
        },
        lockDir: root,
      },
      ssh: { connectTimeoutMs: 2000 },
    });
    await t.rejects(factory.up({ deadline: deadlineIn(30_000) }));
    const d = keptAs?.() ?? '';
    t.match(d, /lab nrh-k1 \(libvirt\) in \S+: its bring-up never finished, so there is nothing to log in to/);
    t.match(d, /vagrant-up\.log in the run's reports says why/);
    t.match(d, /destroy: +reboot-harness destroy nrh-k1 +\(by hand: +env VAGRANT_CWD=\S*nrh-k1 vagrant destroy -f\)/);
    t.notMatch(d, /log in:|ssh -F|ssh-config/, 'no way in to a lab that never came up');
  },
);
