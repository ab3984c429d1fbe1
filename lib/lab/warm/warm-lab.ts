// Warm reruns over any provider with snapshot/restore (LabProvider.snapshots): a lab kept per key under
// <work dir>/warm-<key> with a snapshot of its running machines. The first run of a key brings the lab up cold and
// takes the snapshot once the lab is prepared; later runs restore it, set the guests' clocks from the host, and go on.
// The lab is parked (its machines shut off) when a run ends, so it burns no CPU between runs; a lock per key keeps two
// runs off one warm lab. This file talks to the provider only through SnapshotMachines (lib/lab/provider.ts).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { HarnessConfig } from '../../config/schema.js';
import { HarnessError } from '../../errors.js';
import type { Logger } from '../../log/events.js';
import type { Lab, Machine } from '../../model/lab.js';
import { deadlineIn, type Deadline } from '../../time/deadlines.js';
import { waitFor } from '../../time/wait-for.js';
import { tryLock } from '../../vagrant/lock.js';
import type { LabSnapshots, SnapshotMachines, WarmTeardown } from './snapshots.js';
import {
  decideWarm,
  WARM_SNAPSHOT,
  WARM_STATE_FILE,
  warmKey,
  warmLabId,
  type WarmDecision,
  type WarmInputs,
  type WarmLabState,
} from './warm-key.js';

/** What a warm lab's directory records (warm.json); I: the key's inputs as its provider makes them. */
export interface WarmRecord<I extends object = WarmInputs> {
  key: string;
  inputs: I;
  /** the build file the key's sha256 was read from (not part of the key): `destroy --stale` checks it */
  nomadPath?: string;
  createdAtMs: number;
  /** set once the snapshot exists; what the run that took it knew about the prepared lab */
  snapshot?: { atMs: number; tookMs: number; nomadVersion?: string; agentConfigs?: Record<string, string> };
}

/** What the run that takes the snapshot knows about the prepared lab (Nomad scenarios). */
type SnapshotExtra = Pick<NonNullable<WarmRecord['snapshot']>, 'nomadVersion' | 'agentConfigs'>;

/** What the run gets from a warm lab. */
export interface WarmLab<I extends object = object> {
  decision: Extract<WarmDecision, { mode: 'create' | 'reuse' }>;
  key: string;
  dir: string;
  lab: Lab;
  /** the record as the run found it (reuse: with the snapshot's Nomad version and agent configs) */
  record: WarmRecord<I>;
  /** reuse: seconds each guest's clock was behind the host when it was set after the restore */
  clockSkewS: Record<string, number>;
  /** reuse: how long restoring the machines took */
  revertMs?: number;
  /** create: snapshot the lab as it is now; from then on the run's end parks the lab instead of destroying it */
  snapshot(d: Deadline, extra?: SnapshotExtra): Promise<number>;
}

/** Options of openWarm. */
interface OpenWarmOptions<I extends object, C> {
  config: Pick<HarnessConfig, 'keep' | 'lab'>;
  /** the provider: its name (said when it runs cold) and its snapshot/restore, if it has one */
  provider: { name: string; snapshots?: LabSnapshots<C> };
  /** what the provider's `up` knows, to make the warm lab's machines from (its lab spec, its options) */
  context: C;
  /** the key's inputs: everything that shapes the machines and what is installed before the snapshot */
  inputs: I;
  /** the Nomad build the inputs' sha256 was read from (destroy --stale checks it is still there) */
  nomadPath?: string;
  logger: Logger;
  cleanup: (what: string, fn: () => Promise<void>, opts?: { keptAs?: () => string; alsoWhenKept?: boolean }) => void;
  now?: () => number;
}

/** Budget of parking or destroying a warm lab at the end of a run. */
const TEARDOWN_MS = 5 * 60_000;

/** The record in a warm lab's directory, or undefined. */
export async function readWarmRecord<I extends object = WarmInputs>(dir: string): Promise<WarmRecord<I> | undefined> {
  try {
    return JSON.parse(await fs.readFile(path.join(dir, WARM_STATE_FILE), 'utf8')) as WarmRecord<I>;
  } catch {
    return undefined;
  }
}

async function writeRecord(dir: string, r: WarmRecord<object>): Promise<void> {
  await fs.writeFile(path.join(dir, WARM_STATE_FILE), JSON.stringify(r, null, 2) + '\n');
}

/** Where the key's lock lives: next to its directory (a lab being destroyed keeps its lock until the end). */
export function warmLockPath(workDir: string, id: string): string {
  return path.join(workDir, `${id}.lock`);
}

/** Whether the warm lab in `dir` has a finished snapshot that its machines still carry (`missing`: the provider's). */
export async function warmLabState(
  dir: string,
  missing: (name: string) => Promise<string | undefined>,
): Promise<WarmLabState> {
  const exists = await fs.stat(dir).then(
    () => true,
    () => false,
  );
  if (!exists) return { kind: 'none' };
  const record = await readWarmRecord(dir);
  if (!record?.snapshot)
    return { kind: 'broken', why: `${dir} has no finished snapshot (a creation that was interrupted)` };
  const why = await missing(WARM_SNAPSHOT);
  return why === undefined ? { kind: 'ready', snapshotAtMs: record.snapshot.atMs } : { kind: 'broken', why };
}

/** Set a guest's clock from the host's (a restored guest wakes at its snapshot's time); returns its lag. */
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
 * Open the warm lab of this run's key: cold (with the reason) when warm reruns do not apply, the provider has no
 * snapshot/restore, or another run holds the key; else the lab, created cold (snapshot to be taken by the caller) or
 * restored from its snapshot.
 */
export async function openWarm<I extends object, C>(
  o: OpenWarmOptions<I, C>,
  d: Deadline,
): Promise<WarmLab<I> | { cold: string }> {
  const { config, logger, provider } = o;
  const now = o.now ?? Date.now;
  const base = {
    warm: config.lab.warm,
    provider: provider.name,
    snapshots: provider.snapshots !== undefined,
    keep: config.keep,
    state: { kind: 'none' as const },
    nowMs: now(),
  };
  const early = decideWarm(base);
  if (early.mode === 'cold' || !provider.snapshots) return { cold: early.reason };
  const key = warmKey(o.inputs);
  const id = warmLabId(key);
  const dir = path.join(config.lab.workDir, id);
  await fs.mkdir(config.lab.workDir, { recursive: true });
  const lock = await tryLock(warmLockPath(config.lab.workDir, id), logger);
  if ('heldBy' in lock) return { cold: decideWarm({ ...base, lockedBy: lock.heldBy }).reason };
  // Note: registered first, so it runs last: the lab is parked or destroyed before another run may take it
  o.cleanup(`release the warm lab lock (${id})`, lock.release, { alsoWhenKept: true });
  const machines: SnapshotMachines = provider.snapshots.machines(o.context, { id, dir });
  const state = await warmLabState(dir, (name) => machines.missing(name, d));
  const decision = decideWarm({ ...base, state, nowMs: now() });
  if (decision.mode === 'cold') return { cold: decision.reason };
  if (decision.mode === 'create' && decision.rebuild) {
    logger({ kind: 'warn', t: 0, message: `warm lab ${id}: ${decision.rebuild}; destroying it, rebuilding it cold` });
    await machines.remove(d);
  }
  let snapshotTaken = decision.mode === 'reuse';
  const teardown: WarmTeardown = {
    what: `park the warm lab ${id} (shut its domains off; destroy it when no snapshot was taken)`,
    fn: async (destroy) => {
      const td = deadlineIn(TEARDOWN_MS);
      if (!snapshotTaken) {
        await machines.drop(td);
        await destroy();
        return;
      }
      await machines.park(td);
      logger({ kind: 'info', t: 0, message: `warm lab ${id} kept for the next run (domains shut off): ${dir}` });
    },
  };
  const clockSkewS: Record<string, number> = {};
  let record: WarmRecord<I>;
  let lab: Lab;
  let revertMs: number | undefined;
  if (decision.mode === 'reuse') {
    record = (await readWarmRecord<I>(dir))!;
    lab = await machines.attach(teardown);
    const t0 = now();
    try {
      await machines.restore(WARM_SNAPSHOT, d);
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
      ...(o.nomadPath ? { nomadPath: o.nomadPath } : {}),
    };
    await fs.mkdir(dir, { recursive: true });
    await writeRecord(dir, record);
    lab = await machines.up(teardown, d);
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
      await machines.take(WARM_SNAPSHOT, dd);
      const tookMs = now() - t0;
      snapshotTaken = true;
      record = { ...record, snapshot: { atMs: now(), tookMs, ...extra } };
      await writeRecord(dir, record);
      return tookMs;
    },
  };
}
