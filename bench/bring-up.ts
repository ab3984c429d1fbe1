// The bring-up benchmark: does a lab of N machines cost N times one? For each topology (default 1+1, 1+2, 3+2), a cold
// harness run of server-reboot (`--fresh`: no warm lab; the lightest scenario that brings up a whole cluster with
// Nomad), its bring-up phases read from its JSON report (the VMs up, Nomad installed and the agents started, a leader
// and every client node ready), then the raw floor: plain `vagrant up` of the same machines (the harness's Vagrantfile
// and lab spec, and `vagrant ssh-config`, as the harness's bring-up step does) and `vagrant destroy -f`. Prints the
// table (bench/bring-up-table.ts) and appends it to --record.
// Not a test: about 15 minutes a topology of real VMs under emulation, 5 VMs for 3+2. On a shared machine:
//   flock /work/vm.lock npx tsx bench/bring-up.ts --nomad-binary /path/to/nomad [--topologies 1+1,1+2,3+2] \
//     [--record docs/benchmarks.md]
// Needs root (the lab's network namespace), the box (`reboot-harness setup`) and a linux/amd64 Nomad build.
// Given JSON reports of runs made before (`--report-json`), it makes no VM and prints their bring-up phases:
//   npx tsx bench/bring-up.ts <1+1.json> [<1+2.json> ...]
import { $, argv, fs, os, path } from 'zx';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { resolveConfig } from '../lib/config/validate.js';
import { labSpecFor } from '../lib/lab/vagrant/spec-for.js';
import { undefineDomain } from '../lib/vagrant/snapshot.js';
import { deadlineIn } from '../lib/time/deadlines.js';
import { bringUpPhases, bringUpTable, parseTopologyArg, type BringUpRow } from './bring-up-table.js';

$.verbose = false;
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** Reports given on the command line: their phases, no VM. */
async function fromReports(files: string[]): Promise<void> {
  const rows: BringUpRow[] = [];
  for (const f of files) {
    const doc = (await fs.readJson(f)) as { runs?: { properties?: Record<string, string> }[] };
    rows.push({
      topology: doc.runs?.[0]?.properties?.['lab.topology'] ?? path.basename(f),
      harness: bringUpPhases(doc),
    });
  }
  console.log(bringUpTable(rows));
}

/** Every problem with the arguments and the host at once; exits 2 before anything is created. */
async function preflight(nomad: string | undefined, topologies: string[]): Promise<void> {
  const problems: string[] = [];
  if (process.getuid?.() !== 0) problems.push('must run as root (the lab network namespace and libvirtd)');
  if (!nomad) problems.push('--nomad-binary <path> is required (a linux/amd64 Nomad build)');
  else if (!(await fs.pathExists(nomad))) problems.push(`--nomad-binary ${nomad}: no such file`);
  for (const t of topologies)
    if (!parseTopologyArg(t))
      problems.push(`--topologies: ${JSON.stringify(t)} is no topology (give e.g. 1+1,1+2,3+2)`);
  if (problems.length) {
    for (const p of problems) console.error(`bench: ${p}`);
    process.exit(2);
  }
}

/** A cold server-reboot run of the topology; its report. */
async function harnessRun(nomad: string, work: string, topology: string): Promise<unknown> {
  const { servers, clients } = parseTopologyArg(topology)!;
  const summary = path.join(work, `${topology}.json`);
  const args = ['run', 'server-reboot', '--servers', String(servers), '--clients', String(clients), '--fresh'];
  const out = ['--nomad-binary', nomad, '--report-json', summary, '--reports-dir', path.join(work, 'reports')];
  const r = await $({ cwd: ROOT })`node bin/reboot-harness.js ${args} ${out} --artifacts never --quiet`.nothrow();
  if (!(await fs.pathExists(summary)))
    throw new Error(`the harness run wrote no summary (exit ${r.exitCode}): ${r.stderr.slice(-2000)}`);
  return fs.readJson(summary);
}

/** Plain `vagrant up` of the topology's machines and their ssh-config (ms), then `vagrant destroy -f`. */
async function rawUp(work: string, topology: string): Promise<number> {
  const { servers, clients } = parseTopologyArg(topology)!;
  const res = resolveConfig({
    file: undefined,
    env: process.env,
    flags: { servers: String(servers), clients: String(clients) },
    knownChecks: [],
  });
  if (!res.ok) throw new Error(res.problems.map((p) => `${p.field}: ${p.message}`).join('; '));
  const netns = res.config.lab.netns || 'nrh-lab';
  const id = `nrhbench${randomBytes(3).toString('hex')}`;
  const spec = labSpecFor(res.config, id, ['server', 'client']);
  const dir = path.join(work, id);
  await fs.ensureDir(dir);
  await fs.copy(path.join(ROOT, 'vms', 'Vagrantfile'), path.join(dir, 'Vagrantfile'));
  await fs.writeJson(path.join(dir, 'lab-spec.json'), spec, { spaces: 2 });
  const vagrant = (args: string[]) =>
    $({
      cwd: dir,
      env: { ...process.env, HARNESS_LAB_SPEC: path.join(dir, 'lab-spec.json') },
      timeout: '30m',
    })`ip netns exec ${netns} vagrant ${args}`;
  try {
    const t0 = performance.now();
    await vagrant(['up', '--provider', spec.provider]);
    await vagrant(['ssh-config']);
    return performance.now() - t0;
  } finally {
    await vagrant(['destroy', '-f']).nothrow();
    for (const m of spec.machines)
      await undefineDomain(m.name, { deadline: deadlineIn(5 * 60_000) }).catch((e: Error) =>
        console.error(`bench: removing ${m.name}: ${e.message}`),
      );
  }
}

const files = argv._.filter((a) => a.endsWith('.json'));
if (files.length) {
  await fromReports(files);
  process.exit(0);
}
const nomad = typeof argv['nomad-binary'] === 'string' ? path.resolve(argv['nomad-binary']) : undefined;
const topologies = String(argv['topologies'] ?? '1+1,1+2,3+2')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
await preflight(nomad, topologies);
const work = await fs.mkdtemp(path.join(os.tmpdir(), 'nrh-bring-up-'));
const rows: BringUpRow[] = [];
try {
  for (const topology of topologies) {
    console.error(`bench: ${topology}: harness run (cold)`);
    const harness = bringUpPhases(await harnessRun(nomad!, work, topology));
    console.error(`bench: ${topology}: raw vagrant up`);
    rows.push({ topology, harness, rawUpMs: await rawUp(work, topology) });
    console.log(bringUpTable(rows));
  }
} finally {
  await fs.remove(work);
}
const out = [
  `### Bring-up by topology (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${os.hostname()})`,
  '',
  bringUpTable(rows),
  '',
].join('\n');
console.log(out);
if (typeof argv['record'] === 'string') await fs.appendFile(path.resolve(argv['record']), `\n${out}`);
