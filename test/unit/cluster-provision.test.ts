import t from 'tap';
import { installNomad, REMOTE } from '../../lib/cluster/provision.js';
import { collectHostEvidence } from '../../lib/cluster/evidence.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import type { ExecOptions, ExecResult, Machine } from '../../lib/model/lab.js';

/** A stand-in machine that records every call and answers from a script. */
function fakeMachine(answer: (cmd: string) => Partial<ExecResult> = () => ({})) {
  const calls: { cmd: string; sudo: boolean; stdin?: string }[] = [];
  const uploads: string[] = [];
  const m: Machine = {
    role: 'client',
    name: 'nrh-t-client',
    async exec(cmd: string, o: ExecOptions) {
      calls.push({ cmd, sudo: !!o.sudo, ...(o.stdin === undefined ? {} : { stdin: String(o.stdin) }) });
      return { code: 0, stdout: '', stderr: '', durationMs: 1, ...answer(cmd) };
    },
    async upload(local: string, remote: string) {
      uploads.push(`${local} -> ${remote}`);
    },
    async writeFile() {},
    async bootId() {
      return 'b';
    },
    async forward() {
      throw new Error('unused');
    },
    async disconnect() {},
  };
  return { m, calls, uploads };
}

t.test('installNomad uploads, configures, persists bridge prerequisites and starts the unit', async (t) => {
  const { m, calls, uploads } = fakeMachine((cmd) =>
    cmd.endsWith('nomad version') ? { stdout: 'Nomad v1.9.3\nBuildDate 2024-11-11\n' } : {},
  );
  const r = await installNomad(m, {
    binaryPath: process.execPath,
    role: 'client',
    vars: { private_ip: '10.199.0.11', server_ip: '10.199.0.10' },
    deadline: deadlineIn(5000),
  });
  t.equal(r.version, 'Nomad v1.9.3\nBuildDate 2024-11-11');
  t.same(uploads, [`${process.execPath} -> ${REMOTE.upload}`]);
  t.ok(
    calls.every((c) => c.sudo),
    'every step runs as root',
  );
  const cmds = calls.map((c) => c.cmd);
  t.ok(cmds.includes(`install -m 0755 ${REMOTE.upload} ${REMOTE.binary}`));
  const cfg = calls.find((c) => c.cmd.endsWith(REMOTE.config));
  t.match(cfg?.stdin, /servers\s+= \["10\.199\.0\.10:4647"\]/);
  t.match(calls.find((c) => c.cmd.endsWith(REMOTE.unit))?.stdin, /\[Service\]/);
  t.ok(cmds.some((c) => c.includes('modprobe -a bridge br_netfilter')));
  t.match(cmds[cmds.length - 1], /systemctl enable --now nomad\.service/);
  // the client's static host volume: declared in its config, its directory made before the agent starts
  t.match(cfg?.stdin, /host_volume "reboot-harness" \{\n\s+path\s+= "\/srv\/reboot-harness"/);
  const mkdir = cmds.findIndex(
    (c) => c === "install -d -m 0777 '/srv/reboot-harness'" || c === 'install -d -m 0777 /srv/reboot-harness',
  );
  t.ok(mkdir >= 0 && mkdir < cmds.length - 1, 'the volume directory exists before nomad starts');
});

t.test('installNomad stops at the first failing step with the machine and step named', async (t) => {
  const { m } = fakeMachine((cmd) =>
    cmd.includes('modprobe') ? { code: 1, stderr: 'modprobe: FATAL: Module bridge not found' } : {},
  );
  await t.rejects(
    installNomad(m, {
      binaryPath: process.execPath,
      role: 'server',
      vars: { private_ip: '10.199.0.10' },
      deadline: deadlineIn(5000),
    }),
    {
      message:
        /nrh-t-client: loading bridge modules and sysctls failed \(exit 1\): modprobe: FATAL: Module bridge not found/,
    },
  );
});

t.test('installNomad refuses a binary the VMs cannot run before touching the machine', async (t) => {
  const dir = t.testdir({ nomad: '#!/bin/sh\n' });
  const { m, calls } = fakeMachine();
  await t.rejects(
    installNomad(m, {
      binaryPath: `${dir}/nomad`,
      role: 'server',
      vars: { private_ip: '10.199.0.10' },
      deadline: deadlineIn(5000),
    }),
    { message: /a script/ },
  );
  t.equal(calls.length, 0);
});

t.test('collectHostEvidence records failures instead of throwing', async (t) => {
  const { m } = fakeMachine((cmd) =>
    cmd.includes('-b -1')
      ? { code: 1, stderr: 'Specifying boot ID or boot offset has no effect, no persistent journal was found.' }
      : cmd.startsWith('sh -c \'for d in "$@"; do\n  p=')
        ? { stdout: 'DIR L3Zhci9saWIvY25pL25ldHdvcmtzL25vbWFk 0\nDIR L3Zhci9ydW4vY25pL25vbWFk 0\n' }
        : { stdout: 'ok\n' },
  );
  const ev = await collectHostEvidence(m, { deadline: deadlineIn(5000) });
  t.match(ev['journal-nomad-previous-boot.txt'], /no persistent journal[\s\S]*\[exit 1\]/);
  t.match(ev['ip-addr.txt'], /^\$ ip addr\nok\n$/);
  t.match(ev['cni-state.txt'], /\/var\/lib\/cni\/networks\/nomad: absent\n\/var\/run\/cni\/nomad: absent/);
});
