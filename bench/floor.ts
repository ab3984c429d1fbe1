// The benchmark against the raw floor: on the same box and Vagrantfile, a cold harness run of
// bridge-exec-reboot (--fresh: no snapshot taken), the first run of its warm key (cold, and it takes the snapshot),
// a warm rerun from that lab's snapshot, then the same procedure by hand without the harness, with Nomad and the job
// running (plain `vagrant up` of both
// VMs, the build copied with scp and started from the same agent config, `nomad job run` of the shipped job until it
// answers HTTP, a plain reboot of the client to a new boot_id over SSH, the alloc running again, `vagrant destroy`);
// prints the phases side by side with the ratio, the harness's overhead in percent, and restore.noticed_after (how
// soon after each task's Started event the harness saw the alloc running again). The warm lab lives in a work dir of
// the benchmark's own and is destroyed before the raw floor.
// Not a test: it takes 25-35 minutes of real VMs under emulation. On a shared machine run it under the VM lock:
//   flock /work/vm.lock npx tsx bench/floor.ts --nomad-binary /path/to/nomad \
//     [--expect check=fail] [--record docs/benchmarks.md] [--raw-by <ISO time>]
// Needs root (the lab's network namespace), the box (`reboot-harness setup`) and a linux/amd64 Nomad build.
// Given one or two JSON reports of runs made before (`--report-json`; a cold run, then a warm rerun), it makes no VM and
// prints where their time went (bench/report-figures.ts): npx tsx bench/floor.ts <cold.json> [<warm.json>]
import { $, argv, fs, os, path } from 'zx';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { HarnessConfig } from '../lib/config/schema.js';
import { resolveConfig } from '../lib/config/validate.js';
import { labSpecFor } from '../lib/lab/vagrant/spec-for.js';
import { GRACEFUL_REBOOT_COMMAND } from '../lib/ssh/reboot.js';
import { bridgePrereqScript, renderAgentFiles, REMOTE } from '../lib/cluster/provision.js';
import { readTemplate } from '../lib/cluster/templates.js';
import { quote } from '../lib/shell/quote.js';
import { JOBS } from '../lib/scenario-api/api.js';
import { undefineDomain } from '../lib/vagrant/snapshot.js';
import { deadlineIn } from '../lib/time/deadlines.js';
import { figuresMarkdown, runFigures } from './report-figures.js';
import { STEP_IDS, type StepId } from '../lib/model/run.js';
import { isStepOf, msOfSteps } from '../lib/report/step-id.js';

$.verbose = false;

// Ctrl-C and SIGTERM: the first stops the child that runs (a harness run cleans up its own lab on SIGTERM; a raw
// floor command fails, so its `finally` destroys the raw VMs), the benchmark then removes its warm lab and work dir
// and exits 130 / 143; a second signal exits at once.
type Child = { kill(signal?: NodeJS.Signals): unknown };
const children = new Set<Child>();
let stopping: NodeJS.Signals | undefined;
function track<T extends Child & PromiseLike<unknown>>(p: T): T {
  children.add(p);
  void Promise.resolve(p).then(
    () => children.delete(p),
    () => children.delete(p),
  );
  return p;
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) process.exit(sig === 'SIGINT' ? 130 : 143);
    stopping = sig;
    console.error(`bench: ${sig}: stopping ${children.size} running command(s), then removing what the benchmark made`);
    for (const c of children) c.kill('SIGTERM');
  });
}
/** Between phases: a signal seen ends the benchmark there (each phase's own `finally` has cleaned up). */
function checkStopping(): void {
  if (stopping) throw new Error(`stopped by ${stopping}`);
}
/** After a phase's cleanup: a signal seen ends the benchmark with 130 (SIGINT) or 143 (SIGTERM). */
async function exitIfStopped(work: string): Promise<void> {
  if (!stopping) return;
  await fs.remove(work);
  console.error(`bench: stopped by ${stopping}; its VMs, warm lab and work dir ${work} are removed`);
  process.exit(stopping === 'SIGINT' ? 130 : 143);
}

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
/** How long the raw reboot may take before the benchmark gives up (the harness's own step allows as much). */
const REBOOT_DEADLINE_MS = 15 * 60_000;
/** How often the raw floor asks the client for its boot_id while it reboots. */
const POLL_MS = 1000;

interface Phase {
  name: string;
  rawMs?: number;
  harnessMs?: number;
  note?: string;
}

const secs = (ms: number | undefined): string => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);
const ratio = (p: Phase): string => (p.rawMs && p.harnessMs ? `${(p.harnessMs / p.rawMs).toFixed(2)}x` : '—');

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await fn();
  return [value, performance.now() - t0];
}

/** Preconditions, each with its fix; exits 2 before anything is created. */
async function preflight(nomad: string | undefined, box: string): Promise<void> {
  const problems: string[] = [];
  if (process.getuid?.() !== 0)
    problems.push('must run as root (the lab network namespace and libvirtd): sudo -E npx tsx bench/floor.ts ...');
  if (!nomad)
    problems.push('--nomad-binary <path> is required (a linux/amd64 Nomad build, e.g. /work/nomad-build/v1.9.7/nomad)');
  else if (!(await fs.pathExists(nomad))) problems.push(`--nomad-binary ${nomad}: no such file`);
  const boxes = await $`vagrant box list`.nothrow();
  if (!boxes.stdout.split('\n').some((l) => l.startsWith(`${box} `)))
    problems.push(`the box ${box} is missing: run reboot-harness setup`);
  if (problems.length) {
    for (const p of problems) console.error(`bench: ${p}`);
    process.exit(2);
  }
}

/** A cold harness run; its steps from summary.json and its wall time. */
interface HarnessRun {
  /** `id`: the step's STEP_IDS id (null for a step none is given) */
  steps: { name: string; id?: string | null; durationMs: number }[];
  wallMs: number;
  outcome: string;
  properties: Record<string, string>;
  /** the report as written */
  doc: unknown;
}

async function harnessRun(nomad: string, work: string, label: string, extra: string[] = []): Promise<HarnessRun> {
  const summary = path.join(work, `${label}.json`);
  // --expect passes through (e.g. no-duplicate-ip=fail for 1.9.3), so the run's verdict says what was expected.
  const expect = [argv['expect'] ?? []]
    .flat()
    .filter((e): e is string => typeof e === 'string')
    .flatMap((e) => ['--expect', e]);
  const args = [
    'run',
    'bridge-exec-reboot',
    '--nomad-binary',
    nomad,
    '--reports-dir',
    path.join(work, 'reports'),
    '--report-json',
    summary,
    '--artifacts',
    'never',
    '--work-dir',
    path.join(work, 'labs'),
    '--quiet',
    ...expect,
    ...extra,
  ];
  const [res, wallMs] = await timed(() => track($({ cwd: ROOT })`node bin/reboot-harness.js ${args}`.nothrow()));
  checkStopping();
  if (!(await fs.pathExists(summary)))
    throw new Error(`the harness run wrote no summary (exit ${res.exitCode}): ${res.stderr.slice(-2000)}`);
  const doc = (await fs.readJson(summary)) as {
    runs: { outcome: string; steps: HarnessRun['steps']; properties: Record<string, string> }[];
  };
  const run = doc.runs[0]!;
  const outcome = `${run.outcome} (exit ${res.exitCode})`;
  return { steps: run.steps, wallMs, outcome, properties: run.properties, doc };
}

/** Remove the benchmark's warm lab (its own work dir). */
async function destroyWarm(work: string): Promise<void> {
  const args = ['destroy', '--warm', '--work-dir', path.join(work, 'labs')];
  const r = await $({ cwd: ROOT })`node bin/reboot-harness.js ${args}`.nothrow();
  if (r.exitCode !== 0) console.error(`bench: destroy --warm exited ${r.exitCode}: ${r.stderr.slice(-1000)}`);
}

/** The raw floor's phases (ms). */
interface RawPhases {
  upMs: number;
  installMs: number;
  jobMs: number;
  rebootMs: number;
  restoreMs: number;
  destroyMs: number;
}

/** Poll `probe` once a second (as a hand-written script would) until it returns a value; names the wait and the last state. */
async function pollUntil<T>(what: string, ms: number, probe: () => Promise<T | { not: string }>): Promise<T> {
  const end = performance.now() + ms;
  let last = 'not asked yet';
  while (performance.now() < end) {
    const r = await probe().catch((e: Error) => ({ not: e.message.split('\n')[0] ?? String(e) }));
    if (!(r && typeof r === 'object' && 'not' in r)) return r as T;
    last = r.not;
    await new Promise((r2) => setTimeout(r2, POLL_MS));
  }
  throw new Error(`waiting for ${what}: gave up after ${(ms / 1000).toFixed(0)}s; last: ${last}`);
}

interface ApiAlloc {
  ID: string;
  ClientStatus: string;
  TaskStates?: Record<string, { State: string; Events?: { Type: string }[] }>;
}

/**
 * The same lab by hand, with Nomad and the job running (the reboot is only comparable with Nomad's agent
 * and task executors up, which systemd waits for at shutdown): the harness's Vagrantfile and lab spec, `vagrant up`;
 * the build copied with scp and started from the same agent config and unit (rendered from vms/templates); the
 * shipped job run with `nomad job run` on the server until its alloc answers HTTP; the client rebooted to a new
 * boot_id; the alloc running again (a new Started event) and answering; `vagrant destroy`. Plain ssh/scp, polled
 * once a second, all inside the lab's network namespace.
 */
async function rawFloor(work: string, config: HarnessConfig, nomadBinary: string): Promise<RawPhases> {
  const netns = config.lab.netns || 'nrh-lab';
  const id = `nrhbench${randomBytes(3).toString('hex')}`;
  const spec = labSpecFor(config, id, ['server', 'client']);
  // Note: named by its id, so `reboot-harness destroy --all` finds its domains if this scratch dir is lost (lib/lab/host/orphans.ts)
  const dir = path.join(work, id);
  await fs.ensureDir(dir);
  await fs.copy(path.join(ROOT, 'vms', 'Vagrantfile'), path.join(dir, 'Vagrantfile'));
  await fs.writeJson(path.join(dir, 'lab-spec.json'), spec, { spaces: 2 });
  const inNs = (await $`ip netns list`.nothrow()).stdout.split('\n').some((l) => l.split(' ')[0] === netns);
  if (!inNs) throw new Error(`network namespace ${netns} is missing (the harness run should have made it)`);
  // Note: every command is bounded, so a hung VM or agent ends the benchmark with the command named, not a hang
  const vagrantIn = (args: string[], timeout: '30m' | '10m') =>
    $({
      cwd: dir,
      env: { ...process.env, HARNESS_LAB_SPEC: path.join(dir, 'lab-spec.json') },
      timeout,
    })`ip netns exec ${netns} vagrant ${args}`;
  const vagrant = (args: string[]) => track(vagrantIn(args, '30m'));
  const machine = (role: string) => spec.machines.find((m) => m.role === role)!;
  const [server, client] = [machine('server'), machine('client')];
  const sshConfig = path.join(dir, 'ssh-config');
  const ssh = (host: string, cmd: string) =>
    track(
      $({
        timeout: '2m',
      })`ip netns exec ${netns} ssh -F ${sshConfig} -o ConnectTimeout=3 -o BatchMode=yes ${host} ${cmd}`,
    );
  const scp = (file: string, host: string, to: string) =>
    track($({ timeout: '10m' })`ip netns exec ${netns} scp -q -F ${sshConfig} ${file} ${`${host}:${to}`}`);
  const api = async <T>(p: string): Promise<T> =>
    JSON.parse((await ssh(server.name, `curl -sf --max-time 10 http://127.0.0.1:4646${p}`)).stdout) as T;
  const JOB = 'bridge-exec-http';
  const starts = (a: ApiAlloc) => (a.TaskStates?.['web']?.Events ?? []).filter((e) => e.Type === 'Started').length;
  const answering = async (allocId: string) => {
    const a = await api<{
      AllocatedResources?: { Shared?: { Networks?: { IP?: string }[] } };
      NetworkStatus?: { Address?: string };
    }>(`/v1/allocation/${allocId}`);
    const address = a.NetworkStatus?.Address;
    if (!address) return { not: `alloc ${allocId.slice(0, 8)} has no bridge address yet` };
    const code = (
      await ssh(client.name, `curl -s -o /dev/null --max-time 5 -w '%{http_code}' http://${address}:80/`).nothrow()
    ).stdout.trim();
    return code === '200' ? address : { not: `http://${address}:80/ answered ${code || 'nothing'}` };
  };
  try {
    // Note: the SSH details are part of the bring-up, as in the harness's step (a script cannot reach the VMs without them)
    const [, upMs] = await timed(async () => {
      await vagrant(['up', '--provider', spec.provider]);
      const cfg = await Promise.all([server, client].map(async (m) => (await vagrant(['ssh-config', m.name])).stdout));
      await fs.writeFile(sshConfig, cfg.join('\n'));
    });
    const [, installMs] = await timed(async () => {
      const templates = async (role: 'server' | 'client') => ({
        hcl: await readTemplate(`${role}.hcl`),
        unit: await readTemplate('nomad.service'),
      });
      await Promise.all(
        (
          [
            [server, 'server'],
            [client, 'client'],
          ] as const
        ).map(async ([m, role]) => {
          const vars =
            role === 'server'
              ? { private_ip: m.privateIp, heartbeat_grace: config.nomad.heartbeatGrace }
              : { private_ip: m.privateIp, server_ip: server.privateIp };
          const files = renderAgentFiles(role, vars, await templates(role));
          await fs.writeFile(path.join(dir, `${role}.hcl`), files.hcl);
          await fs.writeFile(path.join(dir, `${role}.service`), files.unit);
          await scp(nomadBinary, m.name, '/tmp/nomad');
          await scp(path.join(dir, `${role}.hcl`), m.name, '/tmp/nomad.hcl');
          await scp(path.join(dir, `${role}.service`), m.name, '/tmp/nomad.service');
          const script = [
            'set -e',
            `install -m 0755 /tmp/nomad ${REMOTE.binary}`,
            `install -D -m 0644 /tmp/nomad.hcl ${REMOTE.config}`,
            `install -D -m 0644 /tmp/nomad.service ${REMOTE.unit}`,
            'install -d -m 0700 /var/lib/nomad',
            bridgePrereqScript(),
            'systemctl daemon-reload',
            'systemctl enable --now nomad.service',
          ].join('\n');
          await ssh(m.name, `sudo sh -c ${quote(script)}`);
        }),
      );
      await pollUntil('the client node ready', 5 * 60_000, async () => {
        const nodes = await api<{ Name: string; Status: string }[]>('/v1/nodes');
        return nodes.some((n) => n.Status === 'ready')
          ? true
          : { not: `nodes: ${JSON.stringify(nodes.map((n) => `${n.Name} ${n.Status}`))}` };
      });
    });
    await scp(JOBS.bridgeExecHttp, server.name, '/tmp/job.nomad.hcl');
    const [allocId, jobMs] = await timed(async () => {
      await ssh(server.name, `${REMOTE.binary} job run -detach /tmp/job.nomad.hcl`);
      const alloc = await pollUntil('the alloc running', 10 * 60_000, async () => {
        const a = (await api<ApiAlloc[]>(`/v1/job/${JOB}/allocations`)).find((x) => x.ClientStatus === 'running');
        return a ?? { not: 'no running alloc' };
      });
      await pollUntil('the alloc answering HTTP', 5 * 60_000, () => answering(alloc.ID));
      return alloc.ID;
    });
    const startedBefore = starts(await api<ApiAlloc>(`/v1/allocation/${allocId}`));
    const before = (await ssh(client.name, 'cat /proc/sys/kernel/random/boot_id')).stdout.trim();
    const [, rebootMs] = await timed(async () => {
      await ssh(client.name, `sudo ${GRACEFUL_REBOOT_COMMAND}`);
      await pollUntil(`${client.name} to come back with a new boot_id`, REBOOT_DEADLINE_MS, async () => {
        const now = (await ssh(client.name, 'cat /proc/sys/kernel/random/boot_id')).stdout.trim();
        return now && now !== before ? now : { not: `boot_id still ${now}` };
      });
    });
    const [, restoreMs] = await timed(async () => {
      await pollUntil('the alloc running again (a new Started event)', 10 * 60_000, async () => {
        const a = await api<ApiAlloc>(`/v1/allocation/${allocId}`);
        return a.ClientStatus === 'running' && starts(a) > startedBefore
          ? true
          : { not: `alloc ${a.ClientStatus}, ${starts(a)} Started events` };
      });
      await pollUntil('the alloc answering HTTP again', 5 * 60_000, () => answering(allocId));
    });
    const [, destroyMs] = await timed(() => vagrant(['destroy', '-f']));
    return { upMs, installMs, jobMs, rebootMs, restoreMs, destroyMs };
  } finally {
    // Note: not tracked (a signal must not stop the cleanup); a domain vagrant lost track of (killed mid-`up`) is
    // removed by hand, storage and all
    await vagrantIn(['destroy', '-f'], '10m').nothrow();
    for (const m of spec.machines)
      await undefineDomain(m.name, { deadline: deadlineIn(5 * 60_000) }).catch((e: Error) =>
        console.error(`bench: removing ${m.name}: ${e.message}`),
      );
  }
}

/** Date, machine and virtualization, for the record. */
async function machine(driver: string): Promise<string> {
  const cpu = (await fs.readFile('/proc/cpuinfo', 'utf8')).match(/^model name\s*:\s*(.+)$/m)?.[1] ?? 'unknown CPU';
  const memGiB = (os.totalmem() / 2 ** 30).toFixed(1);
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
  return (
    `${when} UTC; ${os.hostname()}: ${os.cpus().length} cores (${cpu}), ${memGiB} GiB; ` +
    `libvirt driver ${driver}; load average at start ${load}`
  );
}

// Report files given: their figures only, no VM.
const reports = argv._.map(String).filter((a) => a.endsWith('.json'));
if (reports.length) {
  if (reports.length > 2 || reports.length !== argv._.length) {
    console.error(
      'bench: give one or two JSON reports (a cold run, then a warm rerun): bench/floor.ts <cold.json> [<warm.json>]',
    );
    process.exit(2);
  }
  // each column named by what the run was (lab.warm) and its run id
  const figures = await Promise.all(
    reports.map(async (file) => {
      const doc = (await fs.readJson(file)) as { runs?: { runId?: string; properties?: Record<string, string> }[] };
      const run = doc.runs?.[0];
      const kind = run?.properties?.['lab.warm']?.startsWith('yes') ? 'warm rerun' : 'cold run';
      return runFigures(doc, `${kind} ${run?.runId ?? path.basename(file)}`);
    }),
  ).catch((e: Error) => {
    console.error(`bench: ${e.message}`);
    process.exit(2);
  });
  console.log(`Where the time went (${reports.join(', ')}):\n\n${figuresMarkdown(figures)}`);
  process.exit(0);
}

const nomad = typeof argv['nomad-binary'] === 'string' ? path.resolve(argv['nomad-binary']) : undefined;
const res = resolveConfig({ file: undefined, env: process.env, flags: {}, knownChecks: [] });
if (!res.ok) throw new Error('the environment does not make a valid config');
const config = res.config;
await preflight(nomad, config.lab.box);
const when = await machine(config.lab.libvirtDriver);
const work = await fs.mkdtemp(path.join(os.tmpdir(), 'nrh-bench-'));
console.error(`bench: cold harness run (bridge-exec-reboot, ${nomad}) ...`);
let h: HarnessRun;
let c: HarnessRun;
let w: HarnessRun;
try {
  // Note: the cold run the raw floor is held against is --fresh: the first run of a warm key also pays for the snapshot
  h = await harnessRun(nomad!, work, 'cold', ['--fresh']);
  console.error(
    `bench: harness ${h.outcome} in ${secs(h.wallMs)} (lab.warm: ${h.properties['lab.warm']}); first run of the warm key ...`,
  );
  c = await harnessRun(nomad!, work, 'create');
  console.error(
    `bench: first run of the warm key ${c.outcome} in ${secs(c.wallMs)} (snapshot: ${c.properties['lab.snapshot.created']}); warm rerun ...`,
  );
  w = await harnessRun(nomad!, work, 'warm');
  console.error(`bench: warm rerun ${w.outcome} in ${secs(w.wallMs)} (lab.warm: ${w.properties['lab.warm']})`);
} finally {
  await destroyWarm(work);
  await exitIfStopped(work);
}
const stepOf = (r: HarnessRun, ids: readonly StepId[]) => msOfSteps(r.steps, ids, (s) => s.durationMs);
const UP = [STEP_IDS.labUp];
const INSTALL = [STEP_IDS.install];
const REBOOT = [STEP_IDS.fault];
const JOB_START = [STEP_IDS.jobRunning];
const warmRows = [
  ['bring up the VMs (warm: revert the snapshot, set the clocks)', UP],
  ['install Nomad and start the agents (warm: wait for them after the revert)', INSTALL],
  ["the job's own start (every alloc running, every port answering)", JOB_START],
  ['reboot the client until SSH answers with a new boot_id', REBOOT],
] as const;
const besides = (r: HarnessRun) => r.wallMs - stepOf(r, REBOOT) - stepOf(r, JOB_START);
const warmTable = [
  '| phase | cold harness run | warm rerun | ratio |',
  '| --- | --- | --- | --- |',
  ...warmRows.map(([name, re]) => {
    const [c, x] = [stepOf(h, re), stepOf(w, re)];
    return `| ${name} | ${secs(c)} | ${secs(x)} | ${c ? `${(x / c).toFixed(2)}x` : '—'} |`;
  }),
  `| whole run | ${secs(h.wallMs)} | ${secs(w.wallMs)} | ${(w.wallMs / h.wallMs).toFixed(2)}x |`,
  `| whole run besides the reboot and the job's own start (goal for warm: < 90 s) | ${secs(besides(h))} | ` +
    `${secs(besides(w))} | ${(besides(w) / besides(h)).toFixed(2)}x |`,
].join('\n');
// Where the warm figure goes: each step it counts, largest first, and the CLI's time outside its steps
const counted = w.steps
  .filter((x) => !isStepOf(REBOOT)(x) && !isStepOf(JOB_START)(x))
  .sort((a, b) => b.durationMs - a.durationMs);
const outside = w.wallMs - w.steps.reduce((n, x) => n + x.durationMs, 0);
const warmSteps = [
  "| warm rerun step (besides the reboot and the job's own start) | time |",
  '| --- | --- |',
  ...counted.map((x) => `| ${x.name.replaceAll('|', '\\|')} | ${secs(x.durationMs)} |`),
  `| the CLI outside its steps (start, host check, reports, exit) | ${secs(outside)} |`,
  `| total | ${secs(besides(w))} |`,
].join('\n');
const figures = figuresMarkdown([runFigures(h.doc, 'cold run', h.wallMs), runFigures(w.doc, 'warm rerun', w.wallMs)]);
const warmBoth = `${warmTable}\n\n${warmSteps}\n\nWhere the time went (the harness's own, its share of the restore notice, the settle's decision):\n\n${figures}`;
const createLine = `the first run of the warm key (cold, and it takes the snapshot): ${c.outcome} in ${secs(c.wallMs)}, snapshot ${c.properties['lab.snapshot.created'] ?? 'not taken'}`;
// Note: printed before the raw floor, so a benchmark stopped there still leaves the warm figures
console.error(`bench: warm rerun against the cold harness run:\n${warmBoth}`);
// --raw-by <ISO time>: on a shared lab, the raw floor (~10 min) runs only when it can start before then
const rawBy = typeof argv['raw-by'] === 'string' ? Date.parse(argv['raw-by']) : Infinity;
if (Date.now() > rawBy) {
  const note = `raw floor not measured: --raw-by ${argv['raw-by']} had passed when the warm rerun ended`;
  console.error(`bench: ${note}`);
  const out =
    `### ${when}\n\ncold harness run (--fresh): ${h.outcome}; warm rerun: ${w.outcome} (lab.warm ${w.properties['lab.warm']}, ` +
    `snapshot ${w.properties['lab.snapshot.key']}, ${w.properties['lab.snapshot.age_s']} s old); ${createLine}; Nomad build ${nomad}; ${note}\n\n` +
    `Warm rerun against the cold harness run:\n\n${warmBoth}\n`;
  console.log(out);
  if (typeof argv['record'] === 'string') await fs.appendFile(path.resolve(argv['record']), `\n${out}`);
  await fs.remove(work);
  process.exit(0);
}
console.error('bench: raw floor (by hand, with Nomad and the job) ...');
let raw: RawPhases;
try {
  raw = await rawFloor(work, config, nomad!);
} finally {
  await exitIfStopped(work);
}
// Each harness step to the phase of the by-hand procedure it does (by step id); a step no phase names is its own row.
const PHASES: [string, keyof RawPhases | undefined, readonly StepId[]][] = [
  ['bring up the server and client VMs', 'upMs', [STEP_IDS.labUp]],
  [
    'install Nomad, start the agents, the client node ready',
    'installMs',
    [STEP_IDS.install, STEP_IDS.connect, STEP_IDS.nomadReady],
  ],
  [
    "the job's own start (register, alloc running, HTTP answering)",
    'jobMs',
    [STEP_IDS.jobParse, STEP_IDS.jobRegister, STEP_IDS.jobRunning],
  ],
  ['reboot the client until SSH answers with a new boot_id', 'rebootMs', [STEP_IDS.fault]],
  [
    'restore: the alloc running again and answering (harness: node ready, settle with its quiet period, ports)',
    'restoreMs',
    [STEP_IDS.nodeBack, STEP_IDS.settle, STEP_IDS.portsBack],
  ],
  ['observe before and after, evidence (harness only)', undefined, [STEP_IDS.observeBefore, STEP_IDS.observeAfter]],
];
const matched = isStepOf([...PHASES.flatMap(([, , ids]) => ids), STEP_IDS.teardown]);
const others = h.steps.filter((x) => !matched(x));
const stepsMs = h.steps.reduce((n, x) => n + x.durationMs, 0);
const rawWhole = raw.upMs + raw.installMs + raw.jobMs + raw.rebootMs + raw.restoreMs + raw.destroyMs;
const phases: Phase[] = [
  ...PHASES.map(
    ([name, key, ids]): Phase => ({ name, ...(key ? { rawMs: raw[key] } : {}), harnessMs: stepOf(h, ids) }),
  ),
  ...others.map((x): Phase => ({ name: `${x.name} (harness only)`, harnessMs: x.durationMs })),
  {
    name: 'destroy (harness: teardown, and the CLI outside its steps)',
    rawMs: raw.destroyMs,
    harnessMs: stepOf(h, [STEP_IDS.teardown]) + h.wallMs - stepsMs,
  },
  { name: 'whole', rawMs: rawWhole, harnessMs: h.wallMs },
];
const overhead = ((h.wallMs / rawWhole - 1) * 100).toFixed(1);
const table = [
  '| phase | raw floor (by hand) | harness | ratio |',
  '| --- | --- | --- | --- |',
  ...phases.map(
    (p) => `| ${p.name}${p.note ? ` (${p.note})` : ''} | ${secs(p.rawMs)} | ${secs(p.harnessMs)} | ${ratio(p)} |`,
  ),
].join('\n');
const notice = (r: HarnessRun) => r.properties['restore.noticed_after'] ?? 'not recorded';
const summaryLines = [
  `Harness overhead above the raw floor (the whole cold run against the whole by-hand procedure): **${overhead} %** (goal: under 10 %).`,
  `Restore noticed after the task's Started event (restore.noticed_after; goal: within 0.5 s): cold run ${notice(h)}; first run of the warm key ${notice(c)}; warm rerun ${notice(w)}.`,
].join('\n');
const out =
  `### ${when}\n\ncold harness run (--fresh): ${h.outcome}; warm rerun: ${w.outcome} (lab.warm ${w.properties['lab.warm']}, ` +
  `snapshot ${w.properties['lab.snapshot.key']}, ${w.properties['lab.snapshot.age_s']} s old); ${createLine}; Nomad build ${nomad}\n\n` +
  `Cold harness run against the raw floor with Nomad and the job running:\n\n${table}\n\n${summaryLines}\n\nWarm rerun against the cold harness run:\n\n${warmBoth}\n`;
console.log(out);
if (typeof argv['record'] === 'string') {
  await fs.appendFile(path.resolve(argv['record']), `\n${out}`);
  console.error(`bench: recorded in ${argv['record']}`);
}
await fs.remove(work);
