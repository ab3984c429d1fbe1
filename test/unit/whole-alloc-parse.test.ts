// The whole-alloc host reads' parsers and the API records, on output recorded from a real Nomad 1.9.7 client
// (test/fixtures/whole-alloc/README.md says how), and the shipped agent config's alloc dir.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { isOwnTmpfs, parseFindmntPairs, parseTaskDirs, taskDirsCommand } from '../../lib/parse/task-dir-mounts.js';
import { parseTaskProcs, TASK_PROCS_COMMAND } from '../../lib/parse/task-procs.js';
import { agentSamplesCommand, parseAgentSamples } from '../../lib/parse/agent-samples.js';
import { cniChainOwners, parseNatTable } from '../../lib/parse/iptables-nat.js';
import { allocExecCommand, parseAllocExec } from '../../lib/parse/alloc-exec-output.js';
import { clientDirsOf } from '../../lib/cluster/parse-agent-config.js';
import { nomadServicesOf, toAllocChecks, toServiceRegs } from '../../lib/parse/service-registrations.js';
import { restartProgress } from '../../lib/parse/task-restart.js';
import { toAllocSnap } from '../../lib/nomad/parse.js';
import type { ApiAllocation } from '../../lib/nomad/api-types.js';

const real = (p: string) => readFileSync(new URL(`../fixtures/whole-alloc/real-1.9.7/${p}`, import.meta.url), 'utf8');
const ALLOC_DIR = '/tmp/whl-rec/data/alloc';

t.test('task dirs: findmnt -P of each secrets/ and private/, own tmpfs or the filesystem above', async (t) => {
  t.match(
    taskDirsCommand('/var/lib/nomad/alloc/'),
    /^sh -c '.*findmnt -n -P -o TARGET,FSTYPE,SOURCE,OPTIONS -T "\$p".*' sh \/var\/lib\/nomad\/alloc$/s,
    'the dir is an argument, trailing slash dropped',
  );
  const before = parseTaskDirs(real('initial/task-dirs.txt'), ALLOC_DIR);
  t.equal(before.length, 4, 'two tasks, two dirs each');
  t.same(before.map((m) => `${m.task}/${m.dir}`).sort(), [
    'admin/private',
    'admin/secrets',
    'web/private',
    'web/secrets',
  ]);
  t.ok(before.every(isOwnTmpfs), 'real 1.9.7 placed: every one its own tmpfs');
  t.match(before[0], {
    allocId: '3409559e-67f3-f2d1-850d-86bd1421bb56',
    fstype: 'tmpfs',
    source: 'tmpfs',
    options: /size=1024k/,
  });
  const lost = parseTaskDirs(real('after-reboot-sim/task-dirs.txt'), ALLOC_DIR).filter((m) =>
    m.allocId.startsWith('73c563bc'),
  );
  t.equal(lost.length, 4);
  t.ok(
    lost.every((m) => !isOwnTmpfs(m) && m.target === '/' && m.fstype === 'ext4'),
    'after the simulated reboot: plain directories on the root ext4 (GH-28345)',
  );
  t.ok(
    parseTaskDirs(real('after-agent-kill/task-dirs.txt'), ALLOC_DIR).every(isOwnTmpfs),
    'an agent restart unmounts nothing',
  );
  t.same(
    parseFindmntPairs('TARGET="/a\\x22b" FSTYPE="tmpfs"'),
    { TARGET: '/a"b', FSTYPE: 'tmpfs' },
    'findmnt escapes a quote as \\x22',
  );
  t.same(
    parseTaskDirs('D /elsewhere/x/y/secrets\nTARGET="/" FSTYPE="ext4"\n', ALLOC_DIR),
    [],
    'a path outside the alloc dir is not placed',
  );
});

t.test('task processes: identity from the environment, namespace, alloc-network variables, /etc files', async (t) => {
  t.match(TASK_PROCS_COMMAND, /grep -l -a -z '\^NOMAD_ALLOC_ID='/);
  t.match(
    TASK_PROCS_COMMAND,
    /grep -E '\^NOMAD_\(ALLOC_ID\|TASK_NAME\|ALLOC_\(IP\|ADDR\|PORT\)_\[\^=\]\*\)='/,
    'only the identity and network variables leave the host',
  );
  const r = parseTaskProcs(real('initial/task-procs.txt'));
  t.same(
    r.processes.map((p) => [p.pid, p.task, p.netns]),
    [
      [2236, 'admin', '4026532307'],
      [2280, 'web', '4026532307'],
    ],
  );
  t.same(r.processes[1]!.allocNetEnv, {
    NOMAD_ALLOC_ADDR_admin: '172.26.64.2:9000',
    NOMAD_ALLOC_ADDR_http: '172.26.64.2:80',
    NOMAD_ALLOC_IP_admin: '172.26.64.2',
    NOMAD_ALLOC_IP_http: '172.26.64.2',
    NOMAD_ALLOC_PORT_admin: '9000',
    NOMAD_ALLOC_PORT_http: '80',
  });
  t.same(
    r.processes[1]!.etcHosts,
    { exists: true, byNomad: false, addresses: [] },
    "an exec task's /etc/hosts is the host's copy",
  );
  t.equal(r.processes[1]!.resolvConf, true);
  const ns = r.netns.find((n) => n.names.includes('3409559e-67f3-f2d1-850d-86bd1421bb56'));
  t.same(ns, {
    inode: '4026532307',
    names: ['3409559e-67f3-f2d1-850d-86bd1421bb56'],
    addrs: [{ ifname: 'eth0', cidr: '172.26.64.2/20' }],
  });
  const restarted = parseTaskProcs(real('after-agent-kill/task-procs-after-restart.txt')).processes.find(
    (p) => p.task === 'web',
  )!;
  t.same(
    restarted.allocNetEnv,
    { NOMAD_ALLOC_PORT_admin: '9000', NOMAD_ALLOC_PORT_http: '80' },
    'real 1.9.7 after an agent restart: a restarted task gets the PORT variables only (GH-26699)',
  );
  t.same(
    parseTaskProcs('P 9 4026530000 sh\nE 9 NOMAD_ALLOC_ID=x\n').processes,
    [],
    'a process without NOMAD_TASK_NAME is no task process',
  );
});

t.test('agent samples: one command, the grep never counts itself', async (t) => {
  const cmd = agentSamplesCommand(7, 5);
  t.match(cmd, /-x 'executo\[r\]'/);
  t.match(cmd, /-x 'agen\[t\]'/);
  t.match(cmd, /while \[ "\$i" -lt 7 \]/);
  t.same(
    parseAgentSamples(real('initial/agent-samples.txt')).map((s) => [
      s.pid,
      s.fds,
      s.executors,
      s.logmons,
      s.dockerLoggers,
    ]),
    [
      [787, 40, 2, 2, 0],
      [787, 41, 2, 2, 0],
      [787, 41, 2, 2, 0],
      [787, 41, 2, 2, 0],
    ],
  );
  t.same(
    parseAgentSamples(real('after-agent-kill/agent-samples.txt')).map((s) => s.fds),
    [52, 73, 94, 116, 138, 159, 180],
    'real 1.9.7 after an agent restart: the pidfd leak',
  );
  t.same(parseAgentSamples('noise\nS 1 2 3\n'), []);
});

t.test(
  'nat table: CNI rules by the container (alloc) ID their comments name, chains by who jumps to them',
  async (t) => {
    const nat = parseNatTable(real('initial/iptables-save-nat.txt'));
    t.ok(nat.chains.includes('CNI-d0e18153b4ee368175df2f4d') && nat.chains.includes('CNI-DN-d0e18153b4ee368175df2'));
    const owned = nat.rules.filter((r) => r.owner === '3409559e-67f3-f2d1-850d-86bd1421bb56');
    t.equal(owned.length, 5, 'POSTROUTING jump, two bridge rules, two portmap jumps');
    const owners = cniChainOwners(nat);
    t.same(
      [...owners.keys()].sort(),
      ['CNI-DN-d0e18153b4ee368175df2', 'CNI-d0e18153b4ee368175df2f4d'],
      "the shared CNI-HOSTPORT-* chains are nobody's",
    );
    t.same(
      [...owners.get('CNI-DN-d0e18153b4ee368175df2')!],
      ['3409559e-67f3-f2d1-850d-86bd1421bb56'],
      "portmap's chain is owned through the jumps to it",
    );
    const leak = cniChainOwners(parseNatTable(real('firewall-leak/iptables-save-nat.txt')));
    t.same([...leak.values()].flatMap((o) => [...o]).sort(), [
      '0b5e55ed-6a05-4c1e-9d11-7e2f3a4b5c6d',
      '0b5e55ed-6a05-4c1e-9d11-7e2f3a4b5c6d',
      '73c563bc-1f3a-e380-4574-4b006d1e7bdb',
      '73c563bc-1f3a-e380-4574-4b006d1e7bdb',
    ]);
    t.same(
      parseNatTable('*filter\n:FORWARD ACCEPT [0:0]\n-A FORWARD -j CNI-FORWARD\nCOMMIT\n'),
      { chains: [], rules: [] },
      'only the nat table is read',
    );
  },
);

t.test('alloc exec: the token on stdin only, EXIT line parsed', async (t) => {
  const cmd = allocExecCommand({
    nomad: '/usr/local/bin/nomad',
    allocId: 'f8125a76-c34f-b7d9-6d8e-515c568e24e9',
    task: 'admin',
    timeoutS: 30,
    withToken: true,
  });
  t.match(cmd, /IFS= read -r NOMAD_TOKEN; export NOMAD_TOKEN;/);
  t.match(
    cmd,
    /timeout 30 \/usr\/local\/bin\/nomad alloc exec '-i=false' '-t=false' -task admin f8125a76-c34f-b7d9-6d8e-515c568e24e9 \/bin\/sh -c 'exit 0'$/,
  );
  t.notMatch(
    allocExecCommand({ nomad: 'nomad', allocId: 'a', task: 't', timeoutS: 5, withToken: false }),
    /NOMAD_TOKEN/,
  );
  t.same(parseAllocExec(real('initial/alloc-exec-web.err') + real('initial/alloc-exec-web.out'), 30), {
    ok: true,
    exitCode: 0,
    output: '',
  });
  t.same(
    parseAllocExec(real('after-agent-kill/alloc-exec-admin.err') + real('after-agent-kill/alloc-exec-admin.out'), 30),
    { ok: false, exitCode: 1, output: 'failed to exec into task: plugin is shut down' },
    'real 1.9.7 after an agent restart (GH-27825)',
  );
  t.same(parseAllocExec('EXIT 124\n', 30), { ok: false, exitCode: undefined, output: 'no answer within 30s' });
  t.match(parseAllocExec('', 30), { ok: false, exitCode: undefined, output: /no EXIT line/ });
});

t.test('services and checks: the job declares, the API registers and checks', async (t) => {
  const declared = nomadServicesOf(JSON.parse(real('job-parsed.json')));
  t.same(declared, [
    { name: 'whole-alloc-http', group: 'web', portLabel: 'http', checks: ['http-root'] },
    { name: 'whole-alloc-admin', group: 'web', portLabel: 'admin', checks: ['admin-tcp'] },
  ]);
  t.same(
    nomadServicesOf({
      Job: {
        TaskGroups: [
          {
            Name: 'g',
            Services: [{ Name: 'c', Provider: 'consul' }],
            Tasks: [{ Name: 't', Services: [{ Name: 's', Provider: 'nomad', Checks: [{ Name: '' }] }] }],
          },
        ],
      },
    }),
    [{ name: 's', group: 'g', task: 't', portLabel: '', checks: [''] }],
    "consul services are not the client's to register here; task-level ones count",
  );
  t.same(toServiceRegs(JSON.parse(real('initial/service-whole-alloc-http.json'))), [
    {
      service: 'whole-alloc-http',
      id: '_nomad-task-3409559e-67f3-f2d1-850d-86bd1421bb56-group-web-whole-alloc-http-http',
      allocId: '3409559e-67f3-f2d1-850d-86bd1421bb56',
      address: '127.0.0.1',
      port: 21045,
    },
  ]);
  t.same(toServiceRegs(null), []);
  const checks = toAllocChecks('3409559e', JSON.parse(real('initial/alloc-checks.json')));
  t.same(
    checks.map((c) => [c.service, c.check, c.status, c.output]),
    [
      ['whole-alloc-admin', 'admin-tcp', 'success', 'nomad: tcp ok'],
      ['whole-alloc-http', 'http-root', 'success', 'nomad: http ok'],
    ],
  );
});

t.test('restart progress: signaled, then started, on the client clock', async (t) => {
  const before = toAllocSnap(JSON.parse(real('initial/allocation.json')) as ApiAllocation).tasks['web'];
  const after = toAllocSnap(JSON.parse(real('initial/allocation-after-restart.json')) as ApiAllocation).tasks['web'];
  const p = restartProgress(before, after);
  t.match(p, { started: true });
  t.equal(p.started && new Date(p.startedAtMs).toISOString(), '2026-12-04T15:02:38.586Z');
  t.match(restartProgress(before, before), { started: false, reason: /no Restart Signaled event yet/ });
  const signaled = { ...after!, events: after!.events.slice(0, -1), state: 'pending' };
  t.match(restartProgress(before, signaled), { started: false, reason: /signaled, not started again yet/ });
  t.match(restartProgress(before, undefined), { started: false });
});

t.test("the client's alloc dir from the agent config the harness renders", async (t) => {
  t.same(clientDirsOf(readFileSync(new URL('../../vms/templates/client.hcl', import.meta.url), 'utf8')), {
    dataDir: '/var/lib/nomad',
    allocDir: '/var/lib/nomad/alloc',
  });
  t.same(clientDirsOf('data_dir = "/srv/nomad/"\nclient {\n  alloc_dir = "/srv/allocs"\n}\n'), {
    dataDir: '/srv/nomad',
    allocDir: '/srv/allocs',
  });
  t.equal(clientDirsOf('client { enabled = true }'), undefined);
});
