// The user's job, pure parts: Nomad's job JSON read (jobInfo, jobProblems), probe kinds from meta, the placement failure
// text and its fix, the -var flags and var-file, Nomad's message from a failed conversion, and the converter's argv.
import t from 'tap';
import { expectedAllocsOn, jobInfo, jobProblems, jobsUseRawExec } from '../../lib/parse/nomad-job.js';
import { CLUSTER_JOB_TYPES, jobLab } from '../../lib/steps/job-input.js';
import { DEFAULTS } from '../../lib/config/schema.js';
import { DOCKER_BOX } from '../../lib/cluster/docker-image.js';
import { defaultProbeKind, probeKindOf, probeKindsFromMeta } from '../../lib/checks/probe-kind.js';
import { placementFailureMessage, placementLines } from '../../lib/parse/placement.js';
import { nomadJobConverter, nomadMessage, varFlags } from '../../lib/cluster/job-convert.js';
import { varFile } from '../../lib/steps/job-input.js';
import type { RunCommand } from '../../lib/exec/run.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The shape `nomad job run -output` prints (real v1.9.3 here): unset fields null, the job under "Job". */
const OUTPUT = {
  Job: {
    ID: 'bridge-two-groups',
    Name: 'bridge-two-groups',
    Type: null,
    Meta: null,
    TaskGroups: [
      {
        Name: 'web',
        Count: null,
        Meta: null,
        Networks: [{ Mode: 'bridge', DynamicPorts: [{ Label: 'http', Value: 0, To: 80 }], ReservedPorts: null }],
        Tasks: [{ Name: 'web', Driver: 'exec' }],
      },
      {
        Name: 'echo',
        Count: 2,
        Meta: { reboot_harness_probe_echo: 'tcp' },
        Networks: [
          {
            Mode: 'bridge',
            DynamicPorts: [
              { Label: 'echo', Value: 0, To: 9000 },
              { Label: 'admin', Value: 0, To: 9001 },
            ],
          },
        ],
        Tasks: [{ Name: 'echo', Driver: 'exec' }],
      },
      { Name: 'host', Count: 1, Networks: [{ Mode: 'host' }], Tasks: [{ Name: 'h', Driver: 'raw_exec' }] },
    ],
  },
};

t.test('jobInfo reads -output JSON: defaults for null, groups, ports, drivers, probe kinds', async (t) => {
  const { info, problems } = jobInfo(OUTPUT);
  t.same(problems, []);
  t.equal(info?.type, 'service', "Type null is a service job (Nomad's default)");
  t.same(
    info?.groups.map((g) => [g.name, g.count, g.bridge, g.ports]),
    [
      ['web', 1, true, ['http']],
      ['echo', 2, true, ['echo', 'admin']],
      ['host', 1, false, []],
    ],
  );
  t.equal(info?.expectedAllocs, 4);
  t.same(info?.drivers, ['exec', 'raw_exec']);
  t.same(info?.probeKinds, { web: { http: 'http' }, echo: { echo: 'tcp', admin: 'tcp' }, host: {} });
  t.same(jobProblems(info!), [], 'a host-mode group next to bridge groups is fine');
  t.same(jobInfo(OUTPUT.Job).info?.id, 'bridge-two-groups', 'the job itself, as /v1/jobs/parse answers');
  t.match(jobInfo('nope'), { problems: [/is not a Nomad job/] });
});

t.test('jobProblems: the job types each scenario judges, no bridge group, nothing to run; all at once', async (t) => {
  const job = (type: string, mode = 'bridge', count = 1, ports = [{ Label: 'http', To: 8080 }]) =>
    jobInfo({
      Job: {
        ID: 'j',
        Type: type,
        TaskGroups: [
          {
            Name: 'g',
            Count: count,
            Networks: [{ Mode: mode, DynamicPorts: ports }],
            Tasks: [{ Name: 't', Driver: 'exec' }],
          },
        ],
      },
    }).info!;
  // bridge-exec-reboot (the default): service jobs only, each other type refused with where it is judged
  t.match(
    jobProblems(job('batch', 'none')).map((p) => p.message),
    [/is a batch job: bridge-exec-reboot judges service jobs only/, /group "g" has network \{ mode = "none" \}/],
  );
  for (const type of ['sysbatch', 'system', 'batch'])
    t.match(jobProblems(job(type)), [
      { message: new RegExp(`${type} job: bridge-exec-reboot`), fix: /rolling-reboot or server-reboot/ },
    ]);
  t.match(jobProblems(job('cron')), [
    { message: /has type "cron", which Nomad does not run/, fix: /type = "sysbatch"/ },
  ]);
  t.match(jobProblems(job('service', 'bridge', 0)), [{ message: /asks for no alloc/ }]);
  t.same(jobProblems(job('service')), []);
  t.match(jobProblems(job('service', 'host', 1, [])), [
    { message: /has no group with network \{ mode = "bridge" \} or a host port/ },
  ]);
  // the cluster scenarios: every type; a system, batch or sysbatch job need map no port (its allocs' fate is judged)
  const cluster = CLUSTER_JOB_TYPES('rolling-reboot');
  for (const type of ['service', 'system', 'sysbatch', 'batch'])
    t.same(jobProblems(job(type), {}, cluster), [], `${type} on rolling-reboot`);
  for (const type of ['system', 'sysbatch', 'batch']) {
    t.same(jobProblems(job(type, 'host', 1, []), {}, cluster), [], `${type} without a port`);
    t.same(jobProblems(job(type, 'bridge', 1, []), {}, cluster), [], `${type} in a bridge group without a port`);
  }
  t.match(jobProblems(job('service', 'host', 1, []), {}, cluster), [{ message: /no group with network/ }]);
});

t.test('expectedAllocsOn: a system or sysbatch group runs one alloc per client, the others their count', async (t) => {
  const job = (type: string, counts: number[]) =>
    jobInfo({
      Job: { ID: 'j', Type: type, TaskGroups: counts.map((c, i) => ({ Name: `g${i}`, Count: c, Tasks: [] })) },
    }).info!;
  t.equal(expectedAllocsOn(job('system', [1, 1]), 3), 6);
  t.equal(expectedAllocsOn(job('sysbatch', [1]), 2), 2);
  t.equal(expectedAllocsOn(job('system', [0, 1]), 2), 2, 'a group of count 0 runs nowhere');
  t.equal(expectedAllocsOn(job('service', [3, 1]), 2), 4);
  t.equal(expectedAllocsOn(job('batch', [2]), 5), 2);
});

t.test('a reschedule policy that allows none and a kept ephemeral disk are read per group', async (t) => {
  const info = jobInfo({
    Job: {
      ID: 'j',
      Type: 'batch',
      TaskGroups: [
        {
          Name: 'once',
          ReschedulePolicy: { Attempts: 0, Unlimited: false },
          EphemeralDisk: { Sticky: true, Migrate: false, SizeMB: 300 },
          Tasks: [],
        },
        { Name: 'default', ReschedulePolicy: null, Tasks: [] },
        { Name: 'forever', ReschedulePolicy: { Attempts: 0, Unlimited: true }, Tasks: [] },
        { Name: 'twice', ReschedulePolicy: { Attempts: 2, Unlimited: false }, Tasks: [] },
      ],
    },
  }).info!;
  t.same(
    info.groups.map((g) => [g.name, g.noReschedule]),
    [
      ['once', true],
      ['default', false],
      ['forever', false],
      ['twice', false],
    ],
  );
  t.same(
    info.groups.map((g) => g.disk),
    [
      { sticky: true, migrate: false },
      { sticky: false, migrate: false },
      { sticky: false, migrate: false },
      { sticky: false, migrate: false },
    ],
    'ephemeral_disk read per group (absent: neither)',
  );
});

t.test(
  "volumes: the lab's host volume is taken; another host volume or a CSI volume is refused with the fix",
  async (t) => {
    const job = (volumes: Record<string, unknown>) =>
      jobInfo({
        Job: {
          ID: 'j',
          Type: 'batch',
          TaskGroups: [{ Name: 'g', Count: 1, Volumes: volumes, Tasks: [{ Name: 't', Driver: 'exec' }] }],
        },
      }).info!;
    const lab = { hostVolumes: ['reboot-harness'] };
    const cluster = CLUSTER_JOB_TYPES('rolling-reboot');
    const ok = job({ data: { Name: 'data', Type: 'host', Source: 'reboot-harness', ReadOnly: false } });
    t.same(ok.groups[0]!.volumes, [{ name: 'data', type: 'host', source: 'reboot-harness' }]);
    t.same(jobProblems(ok, lab, cluster), []);
    t.match(jobProblems(job({ db: { Type: 'host', Source: 'pg-data' } }), lab, cluster), [
      {
        message:
          /group "g" volume "db" asks for the host volume "pg-data", which the lab's clients do not declare \(they declare "reboot-harness"\)/,
        fix: /source = "reboot-harness"/,
      },
    ]);
    t.match(jobProblems(job({ ebs: { Type: 'csi', Source: 'vol-1' } }), lab, cluster), [
      { message: /volume "ebs" is a csi volume: the lab runs no csi plugin/ },
    ]);
    t.same(
      jobProblems(job({ db: { Type: 'host', Source: 'pg-data' } }), {}, cluster),
      [],
      'volumes not known: not judged',
    );
  },
);

t.test('jobsUseRawExec: a job file whose task runs raw_exec, in HCL or JSON; unreadable files are none', async (t) => {
  const files: Record<string, string> = {
    'a.hcl': 'job "a" {\n  group "g" {\n    task "t" {\n      driver = "exec"\n    }\n  }\n}\n',
    'b.hcl': 'job "b" {\n  group "g" {\n    task "t" {\n      driver   =   "raw_exec"\n    }\n  }\n}\n',
    'c.json': '{"Job": {"TaskGroups": [{"Tasks": [{"Driver": "raw_exec"}]}]}}',
    'd.hcl': '# driver = "raw_exec_like"\njob "d" { group "g" { task "t" { driver = "docker" } } }',
  };
  const read = async (f: string) => {
    const text = files[f];
    if (text === undefined) throw new Error('ENOENT');
    return text;
  };
  t.equal(await jobsUseRawExec(['a.hcl'], read), false);
  t.equal(await jobsUseRawExec(['a.hcl', 'b.hcl'], read), true);
  t.equal(await jobsUseRawExec(['c.json'], read), true);
  t.equal(await jobsUseRawExec(['d.hcl', 'gone.hcl'], read), false);
  t.equal(await jobsUseRawExec([], read), false);
});

t.test(
  'host networking: a host-mode group with a port is enough; modes the harness cannot probe refused',
  async (t) => {
    const job = (groups: Record<string, unknown>[]) =>
      jobInfo({ Job: { ID: 'h', Type: 'service', TaskGroups: groups } }).info!;
    const group = (name: string, nets: unknown, ports: string[] = []) => ({
      Name: name,
      Count: 1,
      Networks: nets === null ? null : [{ ...(nets as object), DynamicPorts: ports.map((Label) => ({ Label })) }],
      Tasks: [{ Name: 't', Driver: 'exec' }],
    });
    const host = job([group('agent', { Mode: 'host' }, ['http'])]);
    t.same(
      host.groups.map((g) => [g.name, g.mode, g.bridge]),
      [['agent', 'host', false]],
    );
    t.same(jobProblems(host), [], 'a host-mode group with a port to probe');
    t.same(job([group('agent', { Mode: '' }, ['http'])]).groups[0]!.mode, 'host', "Nomad's default mode");
    t.same(job([group('quiet', null)]).groups[0]!.mode, 'host', 'no network block: host');
    t.match(jobProblems(job([group('quiet', null)])), [
      { message: /job "h" has no group with network \{ mode = "bridge" \} or a host port to probe \(groups: quiet\)/ },
    ]);
    t.match(jobProblems(job([group('c', { Mode: 'cni/mynet' }, ['http']), group('b', { Mode: 'bridge' }, ['http'])])), [
      {
        message: /group "c" has network \{ mode = "cni\/mynet" \}: the harness probes and judges bridge and host/,
        fix: /"bridge" or "host"/,
      },
    ]);
  },
);

t.test('a bridge group with no port to probe is refused, saying why and how to add one', async (t) => {
  const job = (groups: Record<string, unknown>[], meta?: Record<string, string>) =>
    jobInfo({ Job: { ID: 'np', Type: 'service', ...(meta ? { Meta: meta } : {}), TaskGroups: groups } }).info!;
  const group = (name: string, ports: string[], count = 1) => ({
    Name: name,
    Count: count,
    Networks: [{ Mode: 'bridge', DynamicPorts: ports.map((Label) => ({ Label })) }],
    Tasks: [{ Name: 't', Driver: 'exec' }],
  });
  t.match(jobProblems(job([group('g', [])])), [
    {
      message: /job "np" group "g" is a bridge group the scenario cannot probe: it maps no port; http-reachable/,
      fix: /port "http" \{ to = 8080 \}/,
    },
  ]);
  t.match(jobProblems(job([group('g', ['db'])], { reboot_harness_probe_db: 'none' })), [
    { message: /every port it maps \(db\) has probe "none"/ },
  ]);
  t.same(jobProblems(job([group('g', ['db']), group('idle', [], 0)])), [], 'a TCP port is enough; count 0 is not run');
  t.equal(jobProblems(job([group('a', []), group('b', [])])).length, 2, 'each such group named, at once');
});

t.test(
  'bad input at once: periodic, parameterized, a static port on more allocs than clients, a driver the box lacks',
  async (t) => {
    const job = (extra: Record<string, unknown>, group: Record<string, unknown> = {}) =>
      jobInfo({
        Job: {
          ID: 'j',
          Type: 'service',
          ...extra,
          TaskGroups: [
            {
              Name: 'g',
              Count: 3,
              Networks: [{ Mode: 'bridge', DynamicPorts: [{ Label: 'http', To: 8080 }] }],
              Tasks: [
                { Name: 'web', Driver: 'exec' },
                { Name: 'side', Driver: 'docker' },
              ],
              ...group,
            },
          ],
        },
      }).info!;
    const periodic = job({ Periodic: { Enabled: true, Spec: '@daily' } });
    t.equal(periodic.periodic, true);
    t.match(jobProblems(periodic), [
      { message: /job "j" has a periodic block: Nomad runs it only on its schedule/, fix: /remove the periodic block/ },
    ]);
    t.same(jobProblems(job({ Periodic: { Enabled: false } })), [], 'a disabled periodic block runs like any job');
    t.match(jobProblems(job({ ParameterizedJob: { Payload: 'optional' } })), [
      {
        message: /has a parameterized block: Nomad runs it only when dispatched/,
        fix: /remove the parameterized block/,
      },
    ]);
    t.same(jobProblems(job({ Periodic: null, ParameterizedJob: null })), [], "null blocks (Nomad's parse) are none");
    const fixed = job(
      {},
      {
        Networks: [
          {
            Mode: 'bridge',
            DynamicPorts: [{ Label: 'http', To: 8080 }],
            ReservedPorts: [{ Label: 'api', Value: 9000 }],
          },
        ],
      },
    );
    t.same(fixed.groups[0]!.staticPorts, ['api']);
    t.same(jobProblems(fixed), [], 'clients not known: not judged');
    t.same(jobProblems(fixed, { clients: 3 }), [], 'one alloc per client fits');
    t.match(jobProblems(fixed, { clients: 2 }), [
      {
        message:
          /group "g" has count = 3 and the static port "api": .* the lab has 2 clients, so 1 alloc would never be placed/,
        fix: /lower count to 2, or give --clients 3/,
      },
    ]);
    t.match(jobProblems(job({}), { drivers: ['exec'], box: 'the-box' }), [
      {
        message:
          /job "j" group "g" task "side" uses driver "docker", which the box the-box does not run \(it runs exec\)/,
        fix: /npm run harness -- setup --docker/,
      },
    ]);
    t.same(jobProblems(job({}), { drivers: ['exec', 'docker'] }), []);
  },
);

t.test('jobLab: the drivers of the boxes the harness builds; other boxes and existing hosts not guessed', async (t) => {
  const lab = (over: Partial<typeof DEFAULTS.lab>) => jobLab({ lab: { ...DEFAULTS.lab, ...over } });
  // raw_exec: the harness enables it on the clients when a job uses it
  t.same(lab({ clients: 2 }), {
    clients: 2,
    hostVolumes: ['reboot-harness'],
    drivers: ['exec', 'raw_exec'],
    box: DEFAULTS.lab.box,
  });
  t.same(lab({ box: DOCKER_BOX }).drivers, ['exec', 'raw_exec', 'docker']);
  t.same(lab({ box: 'my/box' }), { clients: 1, hostVolumes: ['reboot-harness'] });
  t.same(lab({ provider: 'ssh' }), { clients: 1, hostVolumes: ['reboot-harness'] }, 'the harness installs its agents');
});

t.test('probe kinds: label convention, meta over it, group meta over job meta, bad values', async (t) => {
  t.equal(defaultProbeKind('http'), 'http');
  t.equal(defaultProbeKind('https-admin'), 'http');
  t.equal(defaultProbeKind('db'), 'tcp');
  const { kinds, problems } = probeKindsFromMeta(
    { reboot_harness_probe_http: 'tcp', reboot_harness_probe_db: 'none' },
    [
      { name: 'a', meta: undefined, ports: ['http', 'db'] },
      { name: 'b', meta: { reboot_harness_probe_http: 'http', reboot_harness_probe_x: 'udp' }, ports: ['http', 'x'] },
    ],
  );
  t.same(kinds, { a: { http: 'tcp', db: 'none' }, b: { http: 'http' } });
  t.match(problems, [/reboot_harness_probe_x = "udp" in group "b" must be http, tcp or none/]);
  t.equal(probeKindOf(undefined, 'g', 'grpc'), 'tcp', 'no kinds recorded: the label convention');
});

t.test("placement failure: Nomad's CLI text and the flag that fixes it", async (t) => {
  // the AllocMetric of a real scheduler for a group whose memory does not fit (api/allocations.go AllocationMetric)
  const memory = {
    NodesEvaluated: 1,
    NodesAvailable: { dc1: 1 },
    NodesExhausted: 1,
    DimensionExhausted: { memory: 1 },
    CoalescedFailures: 2,
  };
  t.same(placementLines('web', memory), [
    'Task Group "web" (failed to place 3 allocations):',
    '* Resources exhausted on 1 nodes',
    '* Dimension "memory" exhausted on 1 nodes',
  ]);
  const msg = placementFailureMessage('count-3', { web: memory }, { memoryMb: 768, cpus: 1 });
  t.match(
    msg,
    /^job "count-3" does not fit the client \(Nomad's placement failure: Task Group "web" \(failed to place 3 allocations\):/,
  );
  t.match(msg, /fix: give the client VM more memory: --memory 1536 \(now 768 MiB\)/);
  t.match(
    placementFailureMessage(
      'j',
      { g: { NodesEvaluated: 1, DimensionExhausted: { cpu: 1 } } },
      { memoryMb: 1024, cpus: 1 },
    ),
    /--cpus 2 \(now 1\)/,
  );
  t.match(
    placementFailureMessage(
      'j',
      { g: { NodesEvaluated: 1, DimensionExhausted: { 'network: reserved port collision http=8080': 1 } } },
      { memoryMb: 1024, cpus: 1 },
    ),
    /change its static ports/,
  );
  t.match(
    placementFailureMessage(
      'j',
      { g: { NodesEvaluated: 1, ConstraintFiltered: { '${attr.kernel.name} = windows': 1 } } },
      { memoryMb: 1024, cpus: 1 },
    ),
    /Constraint "\$\{attr\.kernel\.name\} = windows": 1 nodes excluded by filter.*constraints exclude/,
  );
  t.match(placementLines('g', { NodesEvaluated: 0, NodesAvailable: { dc2: 0 } }), [
    'Task Group "g" (failed to place 1 allocation):',
    '* No nodes were eligible for evaluation',
    '* No nodes are available in datacenter "dc2"',
  ]);
});

t.test('variables: -var flags (sorted) and a var-file for /v1/jobs/parse', async (t) => {
  t.same(varFlags({ count: 3, image: 'web:1', debug: true }), [
    '-var',
    'count=3',
    '-var',
    'debug=true',
    '-var',
    'image=web:1',
  ]);
  t.equal(varFile({ count: 3, image: 'a "b"', on: false }), 'count = 3\nimage = "a \\"b\\""\non = false\n');
  t.equal(varFile({}), '');
});

t.test("the converter: argv, exit codes and Nomad's message", async (t) => {
  const calls: { file: string; args: readonly string[]; env?: Record<string, string | undefined> }[] = [];
  const answer =
    (code: number, stdout: string, stderr = ''): RunCommand =>
    async (file, args, o) => {
      calls.push({ file, args, ...(o.env ? { env: o.env } : {}) });
      return { code, stdout, stderr, durationMs: 1 };
    };
  const ok = await nomadJobConverter(answer(0, JSON.stringify(OUTPUT)))({
    nomadBinary: '/b/nomad',
    file: 'j.hcl',
    vars: { count: 2 },
  });
  t.same(
    calls[0],
    {
      file: '/b/nomad',
      args: ['job', 'run', '-output', '-var', 'count=2', 'j.hcl'],
      env: { NOMAD_ADDR: 'http://127.0.0.1:4646', NOMAD_TOKEN: undefined },
    },
    'flags before the path (Nomad takes one argument after them)',
  );
  t.match(ok, { ok: true, job: { Job: { ID: 'bridge-two-groups' } } });
  const bad = await nomadJobConverter(
    answer(
      1,
      '',
      'Error getting job struct: Error parsing job file from j.hcl:\nj.hcl:3,13-4,1: Invalid expression; Expected the start of an expression\n',
    ),
  )({ nomadBinary: '/b/nomad', file: 'j.hcl', vars: {} });
  t.same(bad, {
    ok: false,
    message:
      'Error getting job struct: Error parsing job file from j.hcl: | j.hcl:3,13-4,1: Invalid expression; Expected the start of an expression',
  });
  t.match(await nomadJobConverter(answer(0, 'not json'))({ nomadBinary: 'n', file: 'f', vars: {} }), {
    ok: false,
    message: /printed no JSON/,
  });
  const boom: RunCommand = async () => {
    throw new Error('spawn /b/nomad ENOENT');
  };
  t.match(await nomadJobConverter(boom)({ nomadBinary: '/b/nomad', file: 'f', vars: {} }), {
    ok: false,
    message: /could not run \/b\/nomad on this host to parse the job: spawn \/b\/nomad ENOENT/,
  });
  t.equal(nomadMessage('', ''), 'nomad printed nothing');
});

t.test('the converter runs the build without the ACL token of this environment', async (t) => {
  const dir = t.testdir();
  const build = join(dir, 'nomad');
  // a stand-in build that prints, as its job, the token it was given
  writeFileSync(build, '#!/bin/sh\nprintf \'{"token": "%s", "addr": "%s"}\' "${NOMAD_TOKEN-unset}" "$NOMAD_ADDR"\n', {
    mode: 0o755,
  });
  const before = process.env['NOMAD_TOKEN'];
  process.env['NOMAD_TOKEN'] = 'e7c1d2a4-secret-token';
  t.teardown(() => {
    if (before === undefined) delete process.env['NOMAD_TOKEN'];
    else process.env['NOMAD_TOKEN'] = before;
  });
  const r = await nomadJobConverter()({ nomadBinary: build, file: 'j.hcl', vars: {} });
  t.same(r, { ok: true, job: { token: 'unset', addr: 'http://127.0.0.1:4646' } });
});

t.test(
  'placement failure from real v1.9.3 evaluations (test/fixtures/nomad/real-1.9.3/placement-failure)',
  async (t) => {
    const { readFileSync } = await import('node:fs');
    type Ev = {
      JobID: string;
      Status: string;
      FailedTGAllocs: Record<string, Parameters<typeof placementLines>[1]> | null;
    };
    const evals = JSON.parse(
      readFileSync(new URL('../fixtures/nomad/real-1.9.3/placement-failure/evaluations.json', import.meta.url), 'utf8'),
    ) as Ev[];
    const big = evals.find((e) => e.JobID === 'too-big-raw' && e.Status === 'complete')!;
    t.equal(
      placementFailureMessage('too-big-raw', big.FailedTGAllocs!, { memoryMb: 768, cpus: 1 }),
      'job "too-big-raw" does not fit the client (Nomad\'s placement failure: Task Group "web" (failed to place 3 allocations): ' +
        '* Resources exhausted on 1 nodes * Dimension "memory" exhausted on 1 nodes); fix: give the client VM more memory: ' +
        "--memory 1536 (now 768 MiB), or lower the tasks' resources { memory }",
    );
    t.ok(
      evals.some((e) => e.JobID === 'too-big-raw' && e.Status === 'blocked'),
      'a blocked eval stays behind, as waitForJobHealthy expects',
    );
    const drivers = evals.find((e) => e.JobID === 'bridge-nocni' && e.Status === 'complete')!;
    t.match(
      placementFailureMessage('bridge-nocni', drivers.FailedTGAllocs!, { memoryMb: 768, cpus: 1 }),
      /Constraint "missing drivers": 1 nodes excluded by filter.*fix: the client has no healthy driver for one of the job's tasks/,
    );
  },
);
