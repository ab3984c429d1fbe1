// The fault kinds beyond one clean cut (docker-restart, executor-kill, link-flap, link-loss, leader-partition,
// power-loss-all) on createVagrantLab's real code, without VMs: both "machines" (server and client) are a real local
// sshd, `vagrant` is the fake on PATH, virsh is injected, and the guest's `systemctl`, `systemd-run`, `docker`,
// `pgrep`, `kill`, `ip`, `tc`, `iptables` and `iptables-save` are STAND-IN scripts first on the SSH session's PATH
// (recording their calls; nothing touches this host's units, processes, qdiscs or firewall). What the real commands
// do to real guests is for the VM and e2e tiers.
import t from 'tap';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVagrantLab } from '../../lib/lab/vagrant/vagrant-lab.js';
import { runCommand, type RunCommand } from '../../lib/exec/run.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { sh } from '../../lib/shell/quote.js';
import { sshdForTest } from '../helpers/sshd.js';
import { fakeVagrantLab } from '../helpers/fake-vagrant-lab.js';

// PIDs above any real pid_max default, so the executor's "is it gone" probe of /proc finds nothing on this host
const A1 = '5b1d8c4e-0f7a-4d2e-9c3b-1a2b3c4d5e6f';
const A2 = '0a9e7f31-2c4b-4b8e-8f1d-6e5d4c3b2a19';
const EXECUTORS = [
  `4194301 /usr/local/bin/nomad executor {"LogFile":"/opt/nomad/data/alloc/${A1}/web/executor.out","LogLevel":"debug"}`,
  `4194302 /usr/local/bin/nomad executor {"LogFile":"/opt/nomad/data/alloc/${A2}/api/executor.out","LogLevel":"debug"}`,
].join('\n');

const sshd = await sshdForTest(t);
if (sshd) {
  const root = t.testdir({ fake: {}, serial: {}, state: {}, 'Vagrantfile.src': '# fake Vagrantfile\n' });
  const fakeDir = path.join(root, 'fake');
  const state = path.join(root, 'state');
  const vagrantDir = path.join(root, 'nrh-c1');
  const spec = fakeVagrantLab(root, 'nrh-c1', sshd);
  for (const role of ['server', 'client']) {
    mkdirSync(path.join(vagrantDir, `.vagrant/machines/nrh-c1-${role}/libvirt`), { recursive: true });
    writeFileSync(path.join(vagrantDir, `.vagrant/machines/nrh-c1-${role}/libvirt/id`), `uuid-${role}\n`);
  }
  const script = (name: string, body: string) => {
    writeFileSync(path.join(sshd.binDir, name), `#!/bin/sh\nS=${state}\necho "${name} $*" >> $S/calls\n${body}\n`);
    chmodSync(path.join(sshd.binDir, name), 0o755);
  };
  script('sudo', '[ "$1" = -n ] || exit 99\nshift\nexec "$@"');
  // systemd: a restart of docker makes the unit "activating" once, then active with a new PID
  script(
    'systemctl',
    [
      'case "$1" in',
      '  show) if [ -f $S/restarting ]; then rm $S/restarting; echo MainPID=0; echo ActiveState=activating; echo NRestarts=0;',
      '        else echo "MainPID=$(cat $S/dockerpid)"; echo ActiveState=active; echo NRestarts=0; fi ;;',
      '  restart) touch $S/restarting; echo $(( $(cat $S/dockerpid) + 5 )) > $S/dockerpid ;;',
      '  stop) exit 5 ;;',
      'esac',
    ].join('\n'),
  );
  script('systemd-run', 'exit 0');
  script('docker', 'case "$1" in ps) cat $S/containers ;; info) echo 24.0.7 ;; esac');
  script('pgrep', 'cat $S/executors');
  script('kill', 'exit 0');
  script('ip', 'echo "$4 dev eth1 src 10.199.0.11 uid 0"');
  // tc keeps what `tc qdisc show` prints: the root prio, the netem band, and nothing once the root is deleted
  script(
    'tc',
    [
      'case "$1 $2" in',
      '  "qdisc replace") echo "qdisc prio 1: dev $4 root refcnt 2 bands 4" >> $S/qdisc ;;',
      '  "qdisc add") echo "qdisc netem 40: dev $4 parent 1:4 limit 1000" >> $S/qdisc ;;',
      '  "qdisc del") [ -f $S/keepnetem ] || : > $S/qdisc ;;',
      '  "qdisc show") cat $S/qdisc ;;',
      'esac',
    ].join('\n'),
  );
  // iptables-save shows each rule as the -I that made it; -D removes exactly the rule its -I made
  script(
    'iptables',
    [
      'case "$2" in',
      '  -I) echo "$*" >> $S/rules ;;',
      '  -D) line=$(echo "$*" | sed "s/ -D / -I /"); grep -vxF -- "$line" $S/rules > $S/r2; mv $S/r2 $S/rules ;;',
      'esac',
    ].join('\n'),
  );
  script('iptables-save', 'cat $S/rules');
  const put = (f: string, text: string) => writeFileSync(path.join(state, f), text);
  const reset = () => {
    for (const [f, text] of Object.entries({
      calls: '',
      rules: '',
      qdisc: '',
      dockerpid: '900\n',
      containers: 'c0ffee1\nc0ffee2\n',
      executors: `${EXECUTORS}\n`,
    }))
      put(f, text);
  };
  reset();
  const bootFile = path.join(root, 'boot_id');
  writeFileSync(bootFile, 'boot-1\n');

  const virsh: string[] = [];
  let boots = 1;
  const run: RunCommand = async (file, args, opts) => {
    if (file !== 'virsh') return runCommand(file, args, opts);
    virsh.push(args.slice(2).join(' '));
    if (args.includes('start')) writeFileSync(bootFile, `boot-${++boots}\n`);
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
  const callLines = (tool: string) =>
    calls()
      .split('\n')
      .filter((l) => l.startsWith(`${tool} `));

  t.test("the stand-in tools are the ones the SSH session finds (never this host's own)", async (t) => {
    // `kill` is a shell builtin: the performer runs it through `env`, so the stand-in records it (executor-kill below)
    const tools = ['systemctl', 'docker', 'pgrep', 'ip', 'tc', 'iptables'];
    const r = await lab.machines.client!.exec(`command -v ${tools.join(' ')}`, { deadline: deadlineIn(10_000) });
    t.same(
      r.stdout.trim().split('\n'),
      tools.map((n) => path.join(sshd.binDir, n)),
    );
  });

  t.test("docker-restart: the daemon restarted under Nomad's containers, awaited with a new PID", async (t) => {
    reset();
    const rec = await lab.reboot('client', 'docker-restart', { deadline: deadlineIn(30_000) });
    t.same(
      callLines('systemctl').filter((l) => !l.includes(' show ')),
      ['systemctl restart --no-block docker'],
    );
    t.match(calls(), /docker ps -q --filter label=com\.hashicorp\.nomad\.alloc_id/);
    t.match(calls(), /docker info/, 'the daemon answered before the fault was over');
    t.same(rec.facts, {
      'docker.pid.before': '900',
      'docker.pid.after': '905',
      'docker.containers.before': 'c0ffee1 c0ffee2',
    });
    t.equal(rec.kind, 'docker-restart');
    t.equal(rec.bootIdBefore, rec.bootIdAfter, 'no reboot');
    t.same(
      rec.marks?.map((m) => m.label),
      ['Docker daemon restart requested', 'Docker daemon restarted'],
    );
  });

  t.test('docker-restart with no container of Nomad on the client is an error, nothing restarted', async (t) => {
    reset();
    put('containers', '');
    const err = await lab.reboot('client', 'docker-restart', { deadline: deadlineIn(30_000) }).catch((e: Error) => e);
    t.match(String(err), /no container of Nomad runs there/);
    t.notMatch(calls(), /systemctl restart/);
  });

  t.test('executor-kill: SIGKILL to the executor of the first alloc in ID order, awaited gone', async (t) => {
    reset();
    const rec = await lab.reboot('client', 'executor-kill', { deadline: deadlineIn(30_000) });
    t.match(calls(), /pgrep -a -f \[n\]omad executor\n/);
    t.same(
      callLines('kill'),
      ['kill -KILL 4194302'],
      'the kill program, on the one executor, not every `nomad executor`',
    );
    t.same(rec.facts, {
      'executor.pid': '4194302',
      'executor.alloc': A2,
      'executor.task': 'api',
      'executor.others': '1',
    });
    t.equal(rec.bootIdBefore, rec.bootIdAfter);
    t.same(
      rec.marks?.map((m) => m.label),
      ['nomad executor SIGKILLed'],
    );
  });

  t.test('executor-kill with no executor naming an alloc directory is an error naming what it saw', async (t) => {
    reset();
    put('executors', '2400 /usr/local/bin/nomad agent -config /etc/nomad.d\n');
    const err = await lab.reboot('client', 'executor-kill', { deadline: deadlineIn(30_000) }).catch((e: Error) => e);
    t.match(err, { message: /no `nomad executor` names an alloc directory/, hint: /nomad agent -config/ });
    t.same(callLines('kill'), []);
  });

  t.test("link-flap: partition's rules in and out count times, one safety timer, none left", async (t) => {
    reset();
    const t0 = Date.now();
    const rec = await lab.reboot('client', 'link-flap', {
      deadline: deadlineIn(30_000),
      fault: { flapCount: 2, flapDownForMs: 300, flapUpForMs: 200 },
    });
    t.ok(Date.now() - t0 >= 2 * 300 + 200, 'held down twice and up once between');
    const ipt = callLines('iptables').map((l) => l.split(' ').slice(2, 4).join(' '));
    t.same(ipt, ['-I OUTPUT', '-I INPUT', '-D OUTPUT', '-D INPUT', '-I OUTPUT', '-I INPUT', '-D OUTPUT', '-D INPUT']);
    t.match(
      callLines('iptables')[0],
      /-d 10\.199\.0\.10 -p tcp -m multiport --dports 4646,4647 .*nrh-partition -j DROP/,
    );
    t.same(
      callLines('systemd-run').map((l) => l.split(' ').slice(1, 4).join(' ')),
      ['--unit nrh-heal-partition --on-active=121'],
      'one safety heal for the whole flap (1 s + 120 s)',
    );
    t.equal(
      callLines('systemctl').filter((l) => l === 'systemctl stop nrh-heal-partition.timer').length,
      2,
      'stopped before it is scheduled, and once after the last heal (not between cuts)',
    );
    t.equal(readFileSync(path.join(state, 'rules'), 'utf8'), '', 'no rule left');
    t.same(
      rec.marks?.map((m) => m.label),
      ['link down (1/2)', 'link up (1/2)', 'link down (2/2)', 'link up (2/2)', 'link flapped'],
    );
    t.match(rec.facts, { 'link_flap.count': '2', 'link_flap.server_ip': '10.199.0.10' });
    t.equal(rec.bootIdBefore, rec.bootIdAfter);
  });

  t.test("link-loss: netem on the route's interface for the servers' traffic only, then removed", async (t) => {
    reset();
    const t0 = Date.now();
    const rec = await lab.reboot('client', 'link-loss', {
      deadline: deadlineIn(30_000),
      fault: { lossPercent: 25, lossDelayMs: 150, lossForMs: 400 },
    });
    t.ok(Date.now() - t0 >= 400, 'held for loss_for');
    t.match(calls(), /ip -o route get 10\.199\.0\.10\n/);
    t.same(callLines('tc'), [
      'tc qdisc replace dev eth1 root handle 1: prio bands 4',
      'tc qdisc add dev eth1 parent 1:4 handle 40: netem loss 25% delay 150ms',
      'tc filter add dev eth1 parent 1:0 protocol ip prio 4 u32 match ip dst 10.199.0.10/32 flowid 1:4',
      'tc qdisc del dev eth1 root',
      'tc qdisc show',
    ]);
    t.match(
      callLines('systemd-run')[0],
      /--unit nrh-heal-link-loss --on-active=121 \/bin\/sh -c tc qdisc del dev eth1 root/,
      'the safety removal is scheduled before the loss',
    );
    t.ok(calls().indexOf('systemd-run') < calls().indexOf('tc qdisc replace'));
    t.same(rec.facts, {
      'link_loss.percent': '25',
      'link_loss.delay_ms': '150',
      'link_loss.interface': 'eth1',
      'link_loss.server_ip': '10.199.0.10',
    });
    t.same(
      rec.marks?.map((m) => m.label),
      ['link loss on', 'link loss removed'],
    );
  });

  t.test('link-loss: a netem qdisc left after the removal is an error naming it', async (t) => {
    reset();
    put('keepnetem', '');
    const err = await lab
      .reboot('client', 'link-loss', { deadline: deadlineIn(30_000), fault: { lossForMs: 10 } })
      .catch((e: Error) => e);
    t.match(
      String(err),
      /remove the link loss on nrh-c1-client: a netem qdisc is still there:\nqdisc netem 40: dev eth1/,
    );
    rmSync(path.join(state, 'keepnetem'));
  });

  t.test('leader-partition: on the leader, every packet to and from every other machine, then healed', async (t) => {
    reset();
    const rec = await lab.reboot('server', 'leader-partition', {
      deadline: deadlineIn(30_000),
      fault: { partitionForMs: 300 },
    });
    t.same(callLines('iptables'), [
      'iptables -w -I OUTPUT -d 10.199.0.11 -m comment --comment nrh-leader-partition -j DROP',
      'iptables -w -I INPUT -s 10.199.0.11 -m comment --comment nrh-leader-partition -j DROP',
      'iptables -w -D OUTPUT -d 10.199.0.11 -m comment --comment nrh-leader-partition -j DROP',
      'iptables -w -D INPUT -s 10.199.0.11 -m comment --comment nrh-leader-partition -j DROP',
    ]);
    t.match(callLines('systemd-run')[0], /--unit nrh-heal-leader-partition --on-active=121/);
    t.equal(readFileSync(path.join(state, 'rules'), 'utf8'), '', 'healed');
    t.equal(rec.kind, 'leader-partition');
    t.equal(rec.machine, 'nrh-c1-server');
    t.same(rec.facts?.['leader_partition.peers'], '10.199.0.11');
    t.same(
      rec.marks?.map((m) => m.label),
      ['leader partition: the leader cut off every other machine', 'leader partition healed'],
    );
  });

  t.test('power-loss-all, servers first: both off at once, the server on and back, then the client', async (t) => {
    reset();
    virsh.length = 0;
    const t0 = Date.now();
    const rec = await lab.reboot('client', 'power-loss-all', {
      deadline: deadlineIn(60_000),
      fault: { offForMs: 500, powerOrder: 'servers-first' },
    });
    t.ok(Date.now() - t0 >= 500, 'held off for off_for');
    t.same(virsh.slice(0, 2).sort(), ['destroy uuid-client', 'destroy uuid-server'], 'every machine off first');
    t.same(virsh.slice(2), ['start uuid-server', 'start uuid-client']);
    t.equal(rec.kind, 'power-loss-all');
    t.equal(rec.machine, 'nrh-c1-client');
    t.not(rec.bootIdAfter, rec.bootIdBefore, 'the target booted anew');
    t.same(
      rec.marks?.map((m) => `${m.label}: ${m.detail}`),
      [
        'every machine powered off: nrh-c1-server, nrh-c1-client for 1 s (reboot.off_for); then servers-first',
        'powered on: nrh-c1-server',
        'back with new boot ids: nrh-c1-server',
        'powered on: nrh-c1-client',
        'back with new boot ids: nrh-c1-client',
      ],
    );
    t.match(rec.facts, {
      'power_loss_all.order': 'servers-first',
      'power_loss_all.machines': 'nrh-c1-server, nrh-c1-client',
    });
  });

  t.test('power-loss-all, clients first and together', async (t) => {
    virsh.length = 0;
    await lab.reboot('server', 'power-loss-all', {
      deadline: deadlineIn(60_000),
      fault: { offForMs: 10, powerOrder: 'clients-first' },
    });
    t.same(virsh.slice(2), ['start uuid-client', 'start uuid-server']);
    virsh.length = 0;
    const rec = await lab.reboot('server', 'power-loss-all', {
      deadline: deadlineIn(60_000),
      fault: { offForMs: 10, powerOrder: 'together' },
    });
    t.same(virsh.slice(2).sort(), ['start uuid-client', 'start uuid-server']);
    t.same(
      rec.marks?.map((m) => m.label),
      ['every machine powered off', 'powered on', 'back with new boot ids'],
    );
  });
}
