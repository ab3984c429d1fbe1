// The fault kinds on createVagrantLab without VMs (issue 15): both "machines" are a real local sshd, `vagrant` is the
// fake on PATH, virsh is injected, and the client's `systemctl`, `systemd-run`, `iptables` and `iptables-save` are
// STAND-IN scripts first on the SSH session's PATH (recording their calls; nothing touches this host's units or
// firewall). The real commands run on real VMs in the VM and e2e tiers.
import t from 'tap';
import { mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVagrantLab } from '../../lib/lab/vagrant/vagrant-lab.js';
import { runCommand, type RunCommand } from '../../lib/exec/run.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { sh } from '../../lib/shell/quote.js';
import { sshdForTest } from '../helpers/sshd.js';
import { fakeVagrantLab } from '../helpers/fake-vagrant-lab.js';

/** The stand-in agent's PID: none a process of this host can have (pid_max is at most 2^22). */
const AGENT_PID = 4_194_400;

const sshd = await sshdForTest(t);
if (sshd) {
  const root = t.testdir({ fake: {}, serial: {}, state: {}, 'Vagrantfile.src': '# fake Vagrantfile\n' });
  const fakeDir = path.join(root, 'fake');
  const state = path.join(root, 'state');
  const vagrantDir = path.join(root, 'nrh-f1');
  const spec = fakeVagrantLab(root, 'nrh-f1', sshd);
  mkdirSync(path.join(vagrantDir, '.vagrant/machines/nrh-f1-client/libvirt'), { recursive: true });
  writeFileSync(path.join(vagrantDir, '.vagrant/machines/nrh-f1-client/libvirt/id'), 'uuid-client\n');
  const script = (name: string, body: string) => {
    writeFileSync(path.join(sshd.binDir, name), `#!/bin/sh\nS=${state}\necho "${name} $*" >> $S/calls\n${body}\n`);
    chmodSync(path.join(sshd.binDir, name), 0o755);
  };
  script('sudo', '[ "$1" = -n ] || exit 99\nshift\nexec "$@"');
  // systemd: `kill` of the main PID makes the unit "activating" once, then active with a new PID (Restart=on-failure)
  script(
    'systemctl',
    [
      'case "$1" in',
      '  show) if [ -f $S/restarting ]; then rm $S/restarting; echo MainPID=0; echo ActiveState=activating; echo NRestarts=0;',
      '        else echo "MainPID=$(cat $S/pid)"; echo ActiveState=active; echo "NRestarts=$(cat $S/restarts)"; fi ;;',
      '  kill) touch $S/restarting; echo $(( $(cat $S/pid) + 17 )) > $S/pid; echo $(( $(cat $S/restarts) + 1 )) > $S/restarts ;;',
      '  stop) exit 5 ;;',
      'esac',
    ].join('\n'),
  );
  script('systemd-run', 'exit 0');
  // iptables-save shows each rule as the -I that made it (enough for the heal check, which looks for the tag)
  script(
    'iptables',
    'case "$2" in -I) echo "$*" >> $S/rules ;; -D) grep -v -- "-I $3 .*nrh-partition" $S/rules > $S/r2; mv $S/r2 $S/rules ;; esac',
  );
  script('iptables-save', 'cat $S/rules');
  // Note: a PID above the kernel's largest (2^22): the kill's age line reads /proc/<pid>/stat on this very host, and a
  // real process that had PID 612 there gave the record two more facts (the bench at load 15, once)
  writeFileSync(path.join(state, 'pid'), `${AGENT_PID}\n`);
  writeFileSync(path.join(state, 'restarts'), '0\n');
  writeFileSync(path.join(state, 'rules'), '');
  const bootFile = path.join(root, 'boot_id');
  writeFileSync(bootFile, 'boot-1\n');

  const virsh: string[][] = [];
  const run: RunCommand = async (file, args, opts) => {
    if (file !== 'virsh') return runCommand(file, args, opts);
    virsh.push([...args]);
    if (args.includes('start')) writeFileSync(bootFile, `boot-${virsh.length}\n`);
    return { code: 0, stdout: '', stderr: '', durationMs: 1 };
  };
  const lab = await createVagrantLab({
    spec,
    vagrantDir,
    vagrantfile: path.join(root, 'Vagrantfile.src'),
    cleanup: () => {},
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
  }).up({ deadline: deadlineIn(30_000) });
  t.teardown(() => Promise.all(Object.values(lab.machines).map((m) => m.disconnect())));
  const calls = () => readFileSync(path.join(state, 'calls'), 'utf8');

  t.test("the stand-in tools are the ones the SSH session finds (never this host's own)", async (t) => {
    const r = await lab.machines.client!.exec('command -v systemctl iptables iptables-save systemd-run', {
      deadline: deadlineIn(10_000),
    });
    t.same(
      r.stdout.trim().split('\n'),
      ['systemctl', 'iptables', 'iptables-save', 'systemd-run'].map((n) => path.join(sshd.binDir, n)),
    );
  });

  t.test('power-off: virsh destroy, the machine stays off for off_for, virsh start, new boot id', async (t) => {
    const t0 = Date.now();
    const rec = await lab.reboot('client', 'power-off', { deadline: deadlineIn(30_000), fault: { offForMs: 1200 } });
    t.same(
      virsh.map((a) => a.slice(2).join(' ')),
      ['destroy uuid-client', 'start uuid-client'],
    );
    t.ok(Date.now() - t0 >= 1200, 'held off for off_for');
    t.equal(rec.bootIdBefore, 'boot-1');
    t.equal(rec.bootIdAfter, 'boot-2');
    t.same(
      rec.marks?.map((m) => m.label),
      ['powered off', 'powered on'],
    );
    t.ok(rec.marks![1]!.atMs - rec.marks![0]!.atMs >= 1200);
  });

  t.test(
    'agent-kill: SIGKILL to the main PID, waits through "activating" for a new PID; the boot id stays',
    async (t) => {
      const rec = await lab.reboot('client', 'agent-kill', { deadline: deadlineIn(30_000) });
      t.match(calls(), /systemctl kill -s SIGKILL --kill-whom=main nomad\n/);
      t.same(rec.facts, {
        'agent.pid.before': String(AGENT_PID),
        'agent.pid.after': String(AGENT_PID + 17),
        'agent.restarts': '1',
      });
      t.equal(rec.bootIdBefore, rec.bootIdAfter, 'no reboot');
      t.same(
        rec.marks?.map((m) => m.label),
        ['Nomad agent SIGKILLed', 'Nomad agent restarted by systemd'],
      );
    },
  );

  t.test(
    'partition: tagged DROP rules to/from the server on 4646/4647 for partition_for, a safety timer, then healed',
    async (t) => {
      writeFileSync(path.join(state, 'calls'), '');
      const t0 = Date.now();
      const rec = await lab.reboot('client', 'partition', {
        deadline: deadlineIn(30_000),
        fault: { partitionForMs: 1000 },
      });
      t.ok(Date.now() - t0 >= 1000, 'held for partition_for');
      const c = calls();
      t.match(
        c,
        /systemd-run --unit nrh-heal-partition --on-active=121 \/bin\/sh -c iptables -w -D OUTPUT -d 10\.199\.0\.10/,
        'the safety heal is scheduled first',
      );
      t.match(
        c,
        /iptables -w -I OUTPUT -d 10\.199\.0\.10 -p tcp -m multiport --dports 4646,4647 -m comment --comment nrh-partition -j DROP/,
      );
      t.match(
        c,
        /iptables -w -I INPUT -s 10\.199\.0\.10 -p tcp -m multiport --sports 4646,4647 -m comment --comment nrh-partition -j DROP/,
      );
      t.match(c, /iptables -w -D OUTPUT[\s\S]*iptables -w -D INPUT[\s\S]*iptables-save/, 'healed, then checked');
      t.equal(readFileSync(path.join(state, 'rules'), 'utf8'), '', 'no partition rule left');
      t.equal(rec.facts?.['partition.server_ip'], '10.199.0.10');
      t.equal(rec.bootIdBefore, rec.bootIdAfter);
    },
  );

  t.test('a heal that leaves a tagged rule is an error naming it', async (t) => {
    script('iptables', 'case "$2" in -I) echo "$*" >> $S/rules ;; esac');
    const err = await lab
      .reboot('client', 'partition', { deadline: deadlineIn(30_000), fault: { partitionForMs: 10 } })
      .catch((e: Error) => e);
    t.match(
      String(err),
      /heal the partition on nrh-f1-client: rules tagged nrh-partition are still there:\n-w -I OUTPUT -d 10\.199\.0\.10 .*nrh-partition/,
    );
  });
}
