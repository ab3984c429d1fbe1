// Warm reruns: a lab kept per key under <work dir>/warm-<key>, with a libvirt snapshot (memory
// included) of its running domains. The first run of a key brings the lab up cold and takes the snapshot once the lab
// is prepared; later runs revert to it, set the guests' clocks from the host, and go on. The lab is parked (its domains
// shut off) when a run ends, so it burns no CPU between runs; a lock per key keeps two runs off one warm lab.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { HarnessConfig } from '../../config/schema.js';
import { HarnessError } from '../../errors.js';
import type { RunCommand } from '../../exec/run.js';
import type { Logger } from '../../log/events.js';
import type { Lab, Machine } from '../../model/lab.js';
import { topologyLabel, type Topology } from '../../model/topology.js';
import { configTopology } from '../../config/topology.js';
import { deadlineIn, type Deadline } from '../../time/deadlines.js';
import { waitFor } from '../../time/wait-for.js';
import type { SshMachineOptions } from '../../ssh/client.js';
import { vagrantBoxesDir } from '../../vagrant/box-files.js';
import { compareDotted } from '../../parse/versions.js';
import { tryLock } from '../../vagrant/lock.js';
import { sha256File, sha256Of } from '../../builds/cache.js';
import {
  deleteSnapshots,
  networkState,
  powerOffDomain,
  revertDomain,
  snapshotDomains,
  snapshotNames,
  startNetwork,
  undefineDomain,
} from '../../vagrant/snapshot.js';
import { createVagrant, type VagrantOptions } from '../../vagrant/vagrant.js';
import { TEMPLATE_DIR } from '../../cluster/templates.js';
import { jobsUseRawExec } from '../../parse/nomad-job.js';
import { createVagrantLab } from '../vagrant/vagrant-lab.js';
import { LAB_SPEC_FILE, serialLogPath, slotOf, type LabSpec } from '../../model/lab-spec.js';
import {
  decideWarm,
  WARM_SNAPSHOT,
  WARM_STATE_FILE,
  warmKey,
  warmLabSettings,
  warmLabId,
  type WarmCurrent,
  type WarmDecision,
  type WarmInputs,
  type WarmLabState,
} from './warm-key.js';

/** What a warm lab's directory records (warm.json). */
interface WarmRecord {
  key: string;
  inputs: WarmInputs;
  /** the build file the key's sha256 was read from (not part of the key): `destroy --stale` checks it */
  nomadPath?: string;
  createdAtMs: number;
  /** set once the snapshot exists; what the run that took it knew about the prepared lab */
  snapshot?: { atMs: number; tookMs: number; nomadVersion?: string; agentConfigs?: Record<string, string> };
}

/** What the run that takes the snapshot knows about the prepared lab (Nomad scenarios). */
type SnapshotExtra = Pick<NonNullable<WarmRecord['snapshot']>, 'nomadVersion' | 'agentConfigs'>;

/** What the run gets from a warm lab. */
export interface WarmLab {
  decision: Extract<WarmDecision, { mode: 'create' | 'reuse' }>;
  key: string;
  dir: string;
  lab: Lab;
  /** the record as the run found it (reuse: with the snapshot's Nomad version and agent configs) */
  record: WarmRecord;
  /** reuse: seconds each guest's clock was behind the host when it was set after the revert */
  clockSkewS: Record<string, number>;
  /** reuse: how long reverting the domains took */
  revertMs?: number;
  /** create: snapshot the lab as it is now; from then on the run's end parks the lab instead of destroying it */
  snapshot(d: Deadline, extra?: SnapshotExtra): Promise<number>;
}

/** Options of openWarmLab. */
interface WarmLabOptions {
  config: HarnessConfig;
  /** the lab spec as a cold run would make it (its runId is replaced by the warm lab's id) */
  spec: LabSpec;
  inputs: WarmInputs;
  vagrantfile: string;
  logger: Logger;
  cleanup: (what: string, fn: () => Promise<void>, opts?: { keptAs?: () => string; alsoWhenKept?: boolean }) => void;
  ssh?: Partial<Pick<SshMachineOptions, 'bootIdCommand' | 'connectTimeoutMs' | 'streamOutput'>>;
  /** local commands (virsh, vagrant); tests inject */
  run?: RunCommand;
  vagrant?: Partial<Omit<VagrantOptions, 'cwd' | 'run' | 'logger'>>;
  now?: () => number;
}

/** Budget of parking or destroying a warm lab at the end of a run. */
const TEARDOWN_MS = 5 * 60_000;

/** The added box's identity: its newest version and image size+mtime (a rebuilt box is another box). */
async function boxIdentity(box: string, provider: string): Promise<string> {
  const dir = path.join(vagrantBoxesDir(), box.replaceAll('/', '-VAGRANTSLASH-'));
  const versions = (await fs.readdir(dir).catch(() => [] as string[])).filter((v) => /^\d+(\.\d+)*$/.test(v));
  const version = versions.sort(compareDotted).at(-1);
  if (!version) return 'not added';
  const img = await fs.stat(path.join(dir, version, provider, 'box.img')).catch(() => undefined);
  return img ? `${version} ${img.size} ${Math.round(img.mtimeMs)}` : `${version} (no box.img)`;
}

/** sha256 of the agent templates (server.hcl, client.hcl, nomad.service) as they are now. */
async function templatesSha256(): Promise<string> {
  const files = ['server.hcl', 'client.hcl', 'nomad.service'].map((t) => fs.readFile(path.join(TEMPLATE_DIR, t)));
  return sha256Of(Buffer.concat(await Promise.all(files)));
}

/** The host's side of a warm lab's inputs now, to tell a stale one (lib/lab/warm/warm-key.ts staleReasons). */
export async function warmCurrent(record: WarmRecord, vagrantfile: string): Promise<WarmCurrent> {
  const build = record.nomadPath;
  const buildSha256 = record.inputs.nomad
    ? build &&
      (await fs.stat(build).then(
        () => true,
        () => false,
      ))
      ? await sha256File(build)
      : 'missing'
    : undefined;
  return {
    boxId: await boxIdentity(record.inputs.box, record.inputs.provider),
    vagrantfile: await sha256File(vagrantfile),
    templates: await templatesSha256(),
    ...(buildSha256 ? { buildSha256 } : {}),
  };
}

/** The key's inputs for a run: the lab config that shapes the VMs; for Nomad scenarios the build and agent config. */
export async function warmInputsFor(
  config: HarnessConfig,
  o: { roles: readonly string[]; topology?: Topology; driver: string; vagrantfile: string; nomad: boolean },
): Promise<WarmInputs> {
  const nomad =
    o.nomad && config.nomadBinary
      ? {
          sha256: await sha256File(config.nomadBinary),
          heartbeatGrace: config.nomad.heartbeatGrace,
          templates: await templatesSha256(),
          ...((await jobsUseRawExec(config.job.files, (f) => fs.readFile(f, 'utf8'))) ? { rawExec: true } : {}),
        }
      : undefined;
  return {
    ...warmLabSettings(config.lab),
    boxId: await boxIdentity(config.lab.box, config.lab.provider),
    roles: [...o.roles],
    topology: topologyLabel(o.topology ?? configTopology(config)),
    driver: o.driver,
    vagrantfile: await sha256File(o.vagrantfile),
    ...(nomad ? { nomad } : {}),
  };
}

/** The record in a warm lab's directory, or undefined. */
export async function readWarmRecord(dir: string): Promise<WarmRecord | undefined> {
  try {
    return JSON.parse(await fs.readFile(path.join(dir, WARM_STATE_FILE), 'utf8')) as WarmRecord;
  } catch {
    return undefined;
  }
}

async function writeRecord(dir: string, r: WarmRecord): Promise<void> {
  await fs.writeFile(path.join(dir, WARM_STATE_FILE), JSON.stringify(r, null, 2) + '\n');
}

/** Where the key's lock lives: next to its directory (a lab being destroyed keeps its lock until the end). */
export function warmLockPath(workDir: string, id: string): string {
  return path.join(workDir, `${id}.lock`);
}

/** Whether the warm lab in `dir` has a snapshot on every domain of `spec`. */
export async function inspectWarmLab(
  dir: string,
  spec: Pick<LabSpec, 'machines' | 'privateNetwork' | 'libvirt'>,
  o: { deadline: Deadline; run?: RunCommand },
): Promise<WarmLabState> {
  const exists = await fs.stat(dir).then(
    () => true,
    () => false,
  );
  if (!exists) return { kind: 'none' };
  const record = await readWarmRecord(dir);
  const broken = (why: string): WarmLabState => ({ kind: 'broken', why });
  if (!record?.snapshot) return broken(`${dir} has no finished snapshot (a creation that was interrupted)`);
  for (const m of spec.machines) {
    const names = await snapshotNames(m.name, o);
    if (names === undefined) return broken(`its domain ${m.name} is gone`);
    if (!names.includes(WARM_SNAPSHOT)) return broken(`its domain ${m.name} has no snapshot ${WARM_SNAPSHOT}`);
  }
  for (const net of labNetworks(spec)) {
    if ((await networkState(net, o)) === 'missing') return broken(`its libvirt network ${net} is gone`);
  }
  return { kind: 'ready', snapshotAtMs: record.snapshot.atMs };
}

/**
 * Remove a warm lab: its snapshots, its domains (`vagrant destroy`, then by hand whatever is left), its directory and
 * serial logs. Used for a rebuild and by `destroy`.
 */
export async function destroyWarmLab(
  dir: string,
  spec: LabSpec,
  o: {
    deadline: Deadline;
    run?: RunCommand;
    logger?: Logger;
    vagrant?: Partial<Omit<VagrantOptions, 'cwd' | 'logger'>>;
  },
): Promise<void> {
  const vo = { deadline: o.deadline, ...(o.run ? { run: o.run } : {}), ...(o.logger ? { logger: o.logger } : {}) };
  for (const m of spec.machines) {
    await powerOffDomain(m.name, vo);
    await deleteSnapshots(m.name, vo);
  }
  if (
    await fs.stat(path.join(dir, 'Vagrantfile')).then(
      () => true,
      () => false,
    )
  ) {
    const vagrant = createVagrant({
      ...o.vagrant,
      cwd: dir,
      ...(o.run ? { run: o.run } : {}),
      ...(o.logger ? { logger: o.logger } : {}),
      env: { ...o.vagrant?.env, HARNESS_LAB_SPEC: path.join(dir, LAB_SPEC_FILE) },
    });
    await vagrant.destroy([], { provider: spec.provider, deadline: o.deadline }).catch((err: Error) =>
      o.logger?.({
        kind: 'warn',
        t: 0,
        message: `vagrant destroy in ${dir}: ${err.message.split('\n')[0]}; removing by hand`,
      }),
    );
  }
  for (const m of spec.machines) await undefineDomain(m.name, vo);
  await fs.rm(dir, { recursive: true, force: true });
  await Promise.all(spec.machines.map((m) => fs.rm(serialLogPath(spec, m.name), { force: true })));
}

/** The libvirt networks a lab's domains are attached to. */
function labNetworks(spec: Pick<LabSpec, 'privateNetwork' | 'libvirt'>): string[] {
  return [spec.libvirt.managementNetwork.name, spec.privateNetwork.name];
}

/** Set a guest's clock from the host's (a reverted guest wakes at its snapshot's time); returns its lag. */
async function setClock(m: Machine, d: Deadline): Promise<number> {
  // Note: connect first (the connection is cached), so the time sent is not old by a connection's setup
  await waitFor(
    `SSH to ${m.name} after the revert`,
    async (dd) => {
      const r = await m
        .exec('true', { deadline: deadlineIn(15_000, dd) })
        .catch((err: Error) => ({ code: -1, stderr: err.message }));
      if (r.code === 0) return { done: true, value: undefined };
      return { done: false, reason: r.stderr.trim().split('\n')[0] ?? '' };
    },
    { deadline: d },
  );
  const hostS = Date.now() / 1000;
  const r = await m.exec(`before=$(date +%s.%N) && date -u -s @${hostS.toFixed(3)} >/dev/null && echo "$before"`, {
    deadline: d,
    sudo: true,
  });
  if (r.code !== 0)
    throw new HarnessError(`${m.name}: setting the clock after the revert failed (exit ${r.code}): ${r.stderr.trim()}`);
  return Math.round(hostS - Number(r.stdout.trim()));
}

/**
 * Open the warm lab of this run's key: cold (with the reason) when warm reruns do not apply or another run holds the
 * key; else the lab, created cold (snapshot to be taken by the caller) or reverted to its snapshot.
 */
export async function openWarmLab(o: WarmLabOptions, d: Deadline): Promise<WarmLab | { cold: string }> {
  const { config, logger } = o;
  const now = o.now ?? Date.now;
  const base = {
    warm: config.lab.warm,
    provider: config.lab.provider,
    keep: config.keep,
    state: { kind: 'none' as const },
    nowMs: now(),
  };
  const early = decideWarm(base);
  if (early.mode === 'cold') return { cold: early.reason };
  const key = warmKey(o.inputs);
  const id = warmLabId(key);
  const dir = path.join(config.lab.workDir, id);
  await fs.mkdir(config.lab.workDir, { recursive: true });
  const lock = await tryLock(warmLockPath(config.lab.workDir, id), logger);
  if ('heldBy' in lock) return { cold: decideWarm({ ...base, lockedBy: lock.heldBy }).reason };
  // Note: registered first, so it runs last: the lab is parked or destroyed before another run may take it
  o.cleanup(`release the warm lab lock (${id})`, lock.release, { alsoWhenKept: true });
  const run = o.run ? { run: o.run } : {};
  const spec: LabSpec = {
    ...o.spec,
    runId: id,
    machines: o.spec.machines.map((m) => ({ ...m, name: `${id}-${slotOf(m)}` })),
  };
  const domains = spec.machines.map((m) => m.name);
  const state = await inspectWarmLab(dir, spec, { deadline: d, ...run });
  const decision = decideWarm({ ...base, state, nowMs: now() });
  if (decision.mode === 'cold') return { cold: decision.reason };
  if (decision.mode === 'create' && decision.rebuild) {
    logger({ kind: 'warn', t: 0, message: `warm lab ${id}: ${decision.rebuild}; destroying it, rebuilding it cold` });
    await destroyWarmLab(dir, spec, { deadline: d, ...run, logger, ...(o.vagrant ? { vagrant: o.vagrant } : {}) });
  }
  let snapshotTaken = decision.mode === 'reuse';
  const teardown = {
    what: `park the warm lab ${id} (shut its domains off; destroy it when no snapshot was taken)`,
    fn: async (destroy: () => Promise<void>) => {
      const td = { deadline: deadlineIn(TEARDOWN_MS), ...run, logger };
      if (!snapshotTaken) {
        for (const dom of domains) await deleteSnapshots(dom, td).catch(() => undefined);
        await destroy();
        return;
      }
      for (const dom of domains) await powerOffDomain(dom, td);
      logger({ kind: 'info', t: 0, message: `warm lab ${id} kept for the next run (domains shut off): ${dir}` });
    },
  };
  const vlab = createVagrantLab({
    spec,
    vagrantDir: dir,
    vagrantfile: o.vagrantfile,
    logger,
    teardown,
    cleanup: o.cleanup,
    ...run,
    ...(o.vagrant ? { vagrant: o.vagrant } : {}),
    ...(o.ssh ? { ssh: o.ssh } : {}),
  });
  const clockSkewS: Record<string, number> = {};
  let record: WarmRecord;
  let lab: Lab;
  let revertMs: number | undefined;
  if (decision.mode === 'reuse') {
    record = (await readWarmRecord(dir))!;
    lab = await vlab.attach();
    const t0 = now();
    const vo = { deadline: d, ...run, logger };
    try {
      for (const net of labNetworks(spec)) await startNetwork(net, vo);
      // Note: the domains are independent; reverting them together halves the wait with two
      await Promise.all(domains.map((dom) => revertDomain(dom, WARM_SNAPSHOT, vo)));
      revertMs = now() - t0;
      await Promise.all(
        Object.entries(lab.machines).map(async ([name, m]) => (clockSkewS[name] = await setClock(m, d))),
      );
    } catch (err) {
      throw new HarnessError(`warm lab ${id}: reverting to its snapshot failed: ${(err as Error).message}`, {
        hint: `run again with --fresh, or remove the warm lab: reboot-harness destroy ${id}`,
      });
    }
  } else {
    record = {
      key,
      inputs: o.inputs,
      createdAtMs: now(),
      ...(o.inputs.nomad && config.nomadBinary ? { nomadPath: config.nomadBinary } : {}),
    };
    await fs.mkdir(dir, { recursive: true });
    await writeRecord(dir, record);
    lab = await vlab.up({ deadline: d });
  }
  return {
    decision,
    key,
    dir,
    lab,
    record,
    clockSkewS,
    ...(revertMs !== undefined ? { revertMs } : {}),
    async snapshot(dd, extra = {}) {
      if (snapshotTaken) return 0;
      // Note: no SSH session of this process inside the snapshot; the machines reconnect on their next command
      await Promise.all(Object.values(lab.machines).map((m) => m.disconnect()));
      const t0 = now();
      await snapshotDomains(domains, WARM_SNAPSHOT, { deadline: dd, ...run, logger });
      const tookMs = now() - t0;
      snapshotTaken = true;
      record = { ...record, snapshot: { atMs: now(), tookMs, ...extra } };
      await writeRecord(dir, record);
      return tookMs;
    },
  };
}
