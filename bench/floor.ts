// The benchmark against the raw floor (issue 14 part 4): on the same box and Vagrantfile, a cold harness run of
// bridge-exec-reboot (which leaves its warm lab, issue 14 part 3), a warm rerun from that lab's snapshot, then the same
// lab by hand without the harness (plain `vagrant up` of both VMs, a plain reboot of the client to a new boot_id over
// SSH, `vagrant destroy`); prints the phases side by side with the ratio. The warm lab lives in a work dir of the
// benchmark's own and is destroyed at the end.
// Not a test: it takes 15-25 minutes of real VMs. On a shared machine run it under the VM lock:
//   flock /work/vm.lock npx tsx bench/floor.ts --nomad-binary /path/to/nomad \
//     [--expect check=fail] [--record docs/benchmarks.md] [--raw-by <ISO time>]
// Needs root (the lab's network namespace), the box (`reboot-harness setup`) and a linux/amd64 Nomad build.
import { $, argv, fs, os, path } from 'zx';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { HarnessConfig } from '../lib/config/schema.js';
import { resolveConfig } from '../lib/config/validate.js';
import { labSpecFor } from '../lib/lab/spec-for.js';
import { GRACEFUL_REBOOT_COMMAND } from '../lib/ssh/reboot.js';

$.verbose = false;
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
    problems.push(
      '--nomad-binary <path> is required (a linux/amd64 Nomad build, e.g. /work/nomad-build/v1.9.7/nomad)',
    );
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
  steps: { name: string; durationMs: number }[];
  wallMs: number;
  outcome: string;
  properties: Record<string, string>;
}

async function harnessRun(nomad: string, work: string, label: string): Promise<HarnessRun> {
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
  ];
  const [res, wallMs] = await timed(() => $({ cwd: ROOT })`node bin/reboot-harness.js ${args}`.nothrow());
  if (!(await fs.pathExists(summary)))
    throw new Error(`the harness run wrote no summary (exit ${res.exitCode}): ${res.stderr.slice(-2000)}`);
  const doc = (await fs.readJson(summary)) as {
    runs: { outcome: string; steps: { name: string; durationMs: number }[]; properties: Record<string, string> }[];
  };
  const run = doc.runs[0]!;
  return { steps: run.steps, wallMs, outcome: `${run.outcome} (exit ${res.exitCode})`, properties: run.properties };
}

/** Remove the benchmark's warm lab (its own work dir). */
async function destroyWarm(work: string): Promise<void> {
  const args = ['destroy', '--warm', '--work-dir', path.join(work, 'labs')];
  const r = await $({ cwd: ROOT })`node bin/reboot-harness.js ${args}`.nothrow();
  if (r.exitCode !== 0) console.error(`bench: destroy --warm exited ${r.exitCode}: ${r.stderr.slice(-1000)}`);
}

/** The same lab by hand: the harness's Vagrantfile and lab spec, vagrant up, reboot to a new boot_id, destroy. */
async function rawFloor(
  work: string,
  config: HarnessConfig,
): Promise<{ upMs: number; rebootMs: number; destroyMs: number }> {
  const netns = config.lab.netns || 'nrh-lab';
  const id = `nrhbench${randomBytes(3).toString('hex')}`;
  const spec = labSpecFor(config, id, ['server', 'client']);
  const dir = path.join(work, 'raw');
  await fs.ensureDir(dir);
  await fs.copy(path.join(ROOT, 'vms', 'Vagrantfile'), path.join(dir, 'Vagrantfile'));
  await fs.writeJson(path.join(dir, 'lab-spec.json'), spec, { spaces: 2 });
  const inNs = (await $`ip netns list`.nothrow()).stdout.split('\n').some((l) => l.split(' ')[0] === netns);
  if (!inNs) throw new Error(`network namespace ${netns} is missing (the harness run should have made it)`);
  const vagrant = (args: string[]) =>
    $({
      cwd: dir,
      env: { ...process.env, HARNESS_LAB_SPEC: path.join(dir, 'lab-spec.json') },
    })`ip netns exec ${netns} vagrant ${args}`;
  const client = spec.machines.find((m) => m.role === 'client')!.name;
  try {
    const [, upMs] = await timed(() => vagrant(['up', '--provider', spec.provider]));
    const sshConfig = path.join(dir, 'ssh-config');
    await fs.writeFile(sshConfig, (await vagrant(['ssh-config', client])).stdout);
    const ssh = (cmd: string) =>
      $`ip netns exec ${netns} ssh -F ${sshConfig} -o ConnectTimeout=3 -o BatchMode=yes ${client} ${cmd}`;
    const before = (await ssh('cat /proc/sys/kernel/random/boot_id')).stdout.trim();
    const [, rebootMs] = await timed(async () => {
      await ssh(`sudo ${GRACEFUL_REBOOT_COMMAND}`);
      const end = performance.now() + REBOOT_DEADLINE_MS;
      let last = `boot_id ${before}`;
      while (performance.now() < end) {
        const r = await ssh('cat /proc/sys/kernel/random/boot_id').nothrow();
        const now = r.stdout.trim();
        if (r.exitCode === 0 && now && now !== before) return;
        last =
          r.exitCode === 0 ? `boot_id still ${now}` : `ssh exit ${r.exitCode}: ${r.stderr.trim().split('\n').at(-1)}`;
        await new Promise((r2) => setTimeout(r2, POLL_MS));
      }
      throw new Error(
        `waiting for ${client} to come back with a new boot_id: ` +
          `gave up after ${REBOOT_DEADLINE_MS / 1000}s; last: ${last}`,
      );
    });
    const [, destroyMs] = await timed(() => vagrant(['destroy', '-f']));
    return { upMs, rebootMs, destroyMs };
  } finally {
    await vagrant(['destroy', '-f']).nothrow();
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

const nomad = typeof argv['nomad-binary'] === 'string' ? path.resolve(argv['nomad-binary']) : undefined;
const res = resolveConfig({ file: undefined, env: process.env, flags: {}, knownChecks: [] });
if (!res.ok) throw new Error('the environment does not make a valid config');
const config = res.config;
await preflight(nomad, config.lab.box);
const when = await machine(config.lab.libvirtDriver);
const work = await fs.mkdtemp(path.join(os.tmpdir(), 'nrh-bench-'));
console.error(`bench: cold harness run (bridge-exec-reboot, ${nomad}) ...`);
let h: HarnessRun;
let w: HarnessRun;
try {
  h = await harnessRun(nomad!, work, 'cold');
  console.error(`bench: harness ${h.outcome} in ${secs(h.wallMs)} (lab.warm: ${h.properties['lab.warm']}); warm rerun ...`);
  w = await harnessRun(nomad!, work, 'warm');
  console.error(`bench: warm rerun ${w.outcome} in ${secs(w.wallMs)} (lab.warm: ${w.properties['lab.warm']})`);
} finally {
  await destroyWarm(work);
}
const stepOf = (r: HarnessRun, re: RegExp) => r.steps.filter((s) => re.test(s.name)).reduce((n, s) => n + s.durationMs, 0);
const UP = /^bring up the server and client VMs$/;
const INSTALL = /^install Nomad and start the agents$/;
const REBOOT = /^reboot the client/;
const JOB_START = /^wait until every alloc of the job/;
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
// Note: printed before the raw floor, so a benchmark stopped there still leaves the warm figures
console.error(`bench: warm rerun against the cold harness run:\n${warmTable}`);
// --raw-by <ISO time>: on a shared lab, the raw floor (~10 min) runs only when it can start before then
const rawBy = typeof argv['raw-by'] === 'string' ? Date.parse(argv['raw-by']) : Infinity;
if (Date.now() > rawBy) {
  const note = `raw floor not measured: --raw-by ${argv['raw-by']} had passed when the warm rerun ended`;
  console.error(`bench: ${note}`);
  const out =
    `### ${when}\n\nharness run: ${h.outcome}; warm rerun: ${w.outcome} (lab.warm ${w.properties['lab.warm']}, ` +
    `snapshot ${w.properties['lab.snapshot.key']}, ${w.properties['lab.snapshot.age_s']} s old; cold run: ` +
    `snapshot ${h.properties['lab.snapshot.created'] ?? 'not taken'}); Nomad build ${nomad}; ${note}\n\n` +
    `Warm rerun against the cold harness run:\n\n${warmTable}\n`;
  console.log(out);
  if (typeof argv['record'] === 'string') await fs.appendFile(path.resolve(argv['record']), `\n${out}`);
  await fs.remove(work);
  process.exit(0);
}
console.error('bench: raw floor ...');
const raw = await rawFloor(work, config);
const step = (re: RegExp) => stepOf(h, re);
const stepsMs = h.steps.reduce((n, s) => n + s.durationMs, 0);
const nomadOnly = stepsMs - step(/^bring up the server and client VMs$/) - step(/^reboot the client/);
const phases: Phase[] = [
  {
    name: 'bring up the server and client VMs',
    rawMs: raw.upMs,
    harnessMs: step(/^bring up the server and client VMs$/),
  },
  {
    name: 'reboot the client until SSH answers with a new boot_id',
    rawMs: raw.rebootMs,
    harnessMs: step(/^reboot the client/),
    note: 'harness: Nomad and the job running',
  },
  {
    name: 'destroy (harness: teardown and all outside the steps)',
    rawMs: raw.destroyMs,
    harnessMs: h.wallMs - stepsMs,
  },
  { name: 'Nomad: install, agents, job, settle, observe (harness only)', harnessMs: nomadOnly },
  { name: 'whole', rawMs: raw.upMs + raw.rebootMs + raw.destroyMs, harnessMs: h.wallMs },
];
const table = [
  '| phase | raw floor | harness | ratio |',
  '| --- | --- | --- | --- |',
  ...phases.map(
    (p) => `| ${p.name}${p.note ? ` (${p.note})` : ''} | ${secs(p.rawMs)} | ${secs(p.harnessMs)} | ${ratio(p)} |`,
  ),
].join('\n');
const out =
  `### ${when}\n\nharness run: ${h.outcome}; warm rerun: ${w.outcome} (lab.warm ${w.properties['lab.warm']}, ` +
  `snapshot ${w.properties['lab.snapshot.key']}, ${w.properties['lab.snapshot.age_s']} s old; cold run: ` +
  `snapshot ${h.properties['lab.snapshot.created'] ?? 'not taken'}); Nomad build ${nomad}\n\n` +
  `Cold harness run against the raw floor:\n\n${table}\n\nWarm rerun against the cold harness run:\n\n${warmTable}\n`;
console.log(out);
if (typeof argv['record'] === 'string') {
  await fs.appendFile(path.resolve(argv['record']), `\n${out}`);
  console.error(`bench: recorded in ${argv['record']}`);
}
await fs.remove(work);
