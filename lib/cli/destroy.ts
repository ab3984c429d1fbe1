// `reboot-harness destroy`: tear down labs left by --keep or a killed run, found by run id under the work dir, and
// warm labs (lib/lab/warm/warm-lab.ts): all of them (--warm), the stale ones (--stale), or any lab older than a duration.
import { lstat, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT, HarnessError, type ExitCode } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import type { Logger } from '../log/events.js';
import { deadlineIn } from '../time/deadlines.js';
import { createVagrant, type VagrantOptions } from '../vagrant/vagrant.js';
import { LAB_SPEC_FILE, type LabSpec, type MachineSpec } from '../model/lab-spec.js';
import { alivePid, stopLabHost } from '../lab/host/host.js';
import type { RunCommand } from '../exec/run.js';
import { tryLock } from '../vagrant/lock.js';
import { olderThan, staleReasons, WARM_PREFIX } from '../lab/warm/warm-key.js';
import { destroyOrphanDomains } from '../lab/host/orphans.js';
import { providerFor } from '../lab/providers.js';
import { markTeardownFailed, serialLogFiles } from '../lab/vagrant/vagrant-lab.js';
import { destroyWarmLab, inspectWarmLab, warmCurrent } from '../lab/vagrant/vagrant-warm.js';
import { readWarmRecord, warmLockPath } from '../lab/warm/warm-lab.js';
import { commandLine, labWords } from '../shell/command-line.js';

/** Which labs `destroy` removes besides the run ids given. */
export interface DestroySweep {
  /** every warm lab */
  warm?: boolean;
  /** warm labs whose box, build, Vagrantfile or templates changed or are gone, or whose domains/snapshot are gone */
  stale?: boolean;
  /** labs (warm ones included) older than this many seconds */
  olderThanS?: number;
}

/** An error's first line (the rest is a stack or a tool's output). */
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message.split('\n')[0]! : String(err));

/** Budget for destroying one lab. */
const DESTROY_MS = 5 * 60_000;

/** Run directories under the work dir that hold a lab spec (i.e. a lab this harness created). */
export async function findLabDirs(workDir: string): Promise<{ runId: string; dir: string }[]> {
  const names = await readdir(workDir).catch(() => [] as string[]);
  const out: { runId: string; dir: string }[] = [];
  for (const n of names.sort()) {
    const dir = join(workDir, n);
    const spec = join(dir, LAB_SPEC_FILE);
    const st = await stat(spec).catch((err: NodeJS.ErrnoException) => err);
    // Note: a spec there that cannot be looked at (a folder this user may not read, a link that loops) is a lab that
    // is told and kept, as a cut spec is; hidden, destroy said "no lab for run id" of a folder that holds one (Q522)
    const told =
      !(st instanceof Error) ||
      st.code === 'EACCES' ||
      (st.code === 'ELOOP' && (await lstat(spec).catch(() => undefined)) !== undefined);
    if (told) out.push({ runId: n, dir });
  }
  return out;
}

/**
 * A lab's spec as its run wrote it. A run killed while writing it (or a full disk) leaves a file that is no spec: the
 * error says so, and each caller tells that lab apart from the others instead of failing on all of them.
 */
export async function readLabSpec(dir: string): Promise<LabSpec> {
  // Note: a named pipe (or a device) there would be read for ever: list-labs, login and destroy waited with no output
  const st = await stat(join(dir, LAB_SPEC_FILE));
  if (!st.isFile())
    throw new Error(
      `it is ${st.isFIFO() ? 'a named pipe (FIFO)' : st.isDirectory() ? 'a folder' : 'no regular file'}, not a file a run wrote`,
    );
  const spec = JSON.parse(await readFile(join(dir, LAB_SPEC_FILE), 'utf8')) as Partial<LabSpec> | null;
  if (!spec || typeof spec !== 'object' || !Array.isArray(spec.machines) || typeof spec.provider !== 'string')
    throw new Error('it is no lab spec (no machines or provider)');
  // Note: every reader names the machines (destroy's line, list-labs' slots, login's pick): a machine that is no
  // object with a name and a role was a TypeError there, and destroy's exit 70 left every later lab of a sweep (Q521)
  // Note: and the name, role and slot words a run writes: a slot of another type was "is not a machine of the lab
  // (got "5"; fix: give one of: 5)", an empty role or slot "login:  (x-client)", and a name led by "-" reached ssh
  // as its options (Q563)
  const word = (v: unknown) => typeof v === 'string' && v !== '' && !v.startsWith('-');
  const odd = spec.machines.findIndex(
    (m: unknown) =>
      typeof m !== 'object' ||
      m === null ||
      !word((m as MachineSpec).name) ||
      !word((m as MachineSpec).role) ||
      ((m as MachineSpec).slot !== undefined && !word((m as MachineSpec).slot)),
  );
  if (odd >= 0)
    throw new Error(
      `it is no lab spec (machine ${odd + 1} of ${spec.machines.length} is no machine with a name and a role)`,
    );
  // a libvirt lab's destroy reads its libvirt part (serial logs, networks): without it the folder would be removed
  // and the destroy then fail on what it could not read
  if (spec.provider === 'libvirt' && (typeof spec.libvirt !== 'object' || spec.libvirt === null))
    throw new Error('it is no lab spec of a libvirt lab (no libvirt part)');
  return spec as LabSpec;
}

/** When a lab was made: a warm lab's record says; a run's lab, when its spec was written. */
export async function labCreatedAtMs(dir: string, runId: string): Promise<number> {
  const record = runId.startsWith(WARM_PREFIX) ? await readWarmRecord(dir) : undefined;
  return record?.createdAtMs ?? (await stat(join(dir, LAB_SPEC_FILE))).mtimeMs;
}

/**
 * Whether a sweep could pick the lab at all, known without its spec: a run's lab only by its age (--older-than), a
 * warm lab by any sweep. The spec of a lab it never picks is not read: one it cannot read is none of its business.
 */
async function mayBeSwept(dir: string, runId: string, sweep: DestroySweep, nowMs: number): Promise<boolean> {
  if (runId.startsWith(WARM_PREFIX) && (sweep.warm || sweep.stale)) return true;
  if (sweep.olderThanS === undefined) return false;
  const created = await labCreatedAtMs(dir, runId).catch(() => undefined);
  // a lab whose age cannot be told (its spec cannot be looked at) is read, and told as such
  return created === undefined || olderThan(created, sweep.olderThanS, nowMs);
}

/** Why `destroy` picks a lab beyond the ids given, or undefined. */
async function sweepReason(
  dir: string,
  runId: string,
  spec: LabSpec,
  sweep: DestroySweep,
  o: { vagrantfile: string; nowMs: number; run?: RunCommand },
): Promise<string | undefined> {
  const warm = runId.startsWith(WARM_PREFIX);
  const record = warm ? await readWarmRecord(dir) : undefined;
  if (sweep.olderThanS !== undefined) {
    if (olderThan(await labCreatedAtMs(dir, runId), sweep.olderThanS, o.nowMs))
      return `older than ${sweep.olderThanS} s`;
  }
  if (!warm) return undefined;
  if (sweep.warm) return 'a warm lab (--warm)';
  if (!sweep.stale) return undefined;
  if (!record) return 'stale: no warm.json';
  const why = staleReasons(record.inputs, await warmCurrent(record, o.vagrantfile));
  const state = await inspectWarmLab(dir, spec, { deadline: deadlineIn(60_000), ...(o.run ? { run: o.run } : {}) });
  if (state.kind === 'broken') why.push(state.why);
  return why.length ? `stale: ${why.join('; ')}` : undefined;
}

/** libvirt's QEMU driver writes `<domain>.pid` here for each running domain. */
const QEMU_RUN_DIR = '/run/libvirt/qemu';

/** The QEMU domains whose process is alive, by libvirt's pid files (sorted names). */
async function runningDomains(dir: string): Promise<string[]> {
  const files = await readdir(dir).catch(() => [] as string[]);
  const alive = await Promise.all(
    files
      .filter((f) => f.endsWith('.pid') && f !== 'driver.pid')
      .map(async (f) => ((await alivePid(join(dir, f))) ? f.slice(0, -4) : undefined)),
  );
  return alive.filter((d): d is string => d !== undefined).sort();
}

/**
 * Destroy the labs of the given run ids (or all, or what `sweep` picks); optionally stop the lab host (libvirtd, netns)
 * the harness started.
 */
export async function destroyLabs(
  config: HarnessConfig,
  ids: string[],
  all: boolean,
  logger: Logger,
  {
    stopHost = false,
    vagrant = {},
    sweep = {},
    vagrantfile,
    run,
    nowMs = Date.now(),
    qemuRunDir = QEMU_RUN_DIR,
    hostStateFile,
  }: {
    stopHost?: boolean;
    vagrant?: Partial<Omit<VagrantOptions, 'cwd' | 'logger'>>;
    sweep?: DestroySweep;
    /** vms/Vagrantfile of this checkout (--stale compares it with the one a warm lab was made with) */
    vagrantfile?: string;
    /** local commands (virsh); tests inject */
    run?: RunCommand;
    nowMs?: number;
    /** where libvirt keeps a pid file per running QEMU domain; tests inject */
    qemuRunDir?: string;
    /** the lab host's state file (what setup started); tests inject */
    hostStateFile?: string;
  } = {},
): Promise<ExitCode> {
  const found = await findLabDirs(config.lab.workDir);
  const unknown = [...new Set(ids)].filter((id) => !found.some((f) => f.runId === id));
  if (unknown.length) {
    throw new HarnessError(`no lab for run id ${unknown.join(', ')} under ${config.lab.workDir}`, {
      exitCode: EXIT.USAGE,
      hint: found.length ? `labs present: ${found.map((f) => f.runId).join(', ')}` : 'no labs are present',
    });
  }
  const chosen: { runId: string; dir: string; spec: LabSpec; why?: string }[] = [];
  let failed = 0;
  const sweeping = all || sweep.warm || sweep.stale || sweep.olderThanS !== undefined;
  for (const f of found) {
    if (!sweeping && !ids.includes(f.runId)) continue;
    // Note: a sweep passes over the labs it can never pick before reading their spec: `destroy --warm` over a kept lab
    // whose spec is cut said "could not destroy lab … kept" of a lab it was never to destroy, and exited 3 (Q562)
    if (!all && !ids.includes(f.runId) && !(await mayBeSwept(f.dir, f.runId, sweep, nowMs))) continue;
    let spec: LabSpec;
    try {
      spec = await readLabSpec(f.dir);
    } catch (err) {
      // Note: one lab whose spec a killed run cut must not stop the destroy of every other lab; it is kept and named
      failed++;
      logger({
        kind: 'warn',
        t: 0,
        message:
          `could not destroy lab ${f.runId} (${f.dir}): its ${LAB_SPEC_FILE} cannot be read: ${messageOf(err)}; kept. ` +
          // Note: named with the work dir, and the narrowest sweep that takes orphans: `destroy --all` pasted under
          // a work dir of your own removed every lab of the default one, warm labs included (Q560)
          `If its machines are gone, remove the folder; a domain of it left in libvirt is then an orphan that any sweep removes (${commandLine(['reboot-harness', 'destroy', '--stale', ...labWords(config.lab)])})`,
      });
      continue;
    }
    let why: string | undefined;
    try {
      why =
        all || ids.includes(f.runId)
          ? undefined
          : await sweepReason(f.dir, f.runId, spec, sweep, {
              vagrantfile: vagrantfile ?? '',
              nowMs,
              ...(run ? { run } : {}),
            });
    } catch (err) {
      // Note: a lab whose state could not be looked at is not stale as far as anyone knows: kept, and the exit says so
      failed++;
      const said = err instanceof Error ? err.message.split('\n')[0] : String(err);
      logger({
        kind: 'warn',
        t: 0,
        message: `could not tell whether lab ${f.runId} is to be destroyed: ${said}; kept`,
      });
      continue;
    }
    if (all || ids.includes(f.runId) || why) chosen.push({ ...f, spec, ...(why ? { why } : {}) });
  }
  for (const { runId, dir, spec, why } of chosen) {
    const machines = spec.machines.map((m) => m.name).join(', ');
    try {
      if (runId.startsWith(WARM_PREFIX)) {
        // Note: a warm lab in use by a running run is left alone (its lock says so); a dead holder's lock is taken over
        const lock = await tryLock(warmLockPath(config.lab.workDir, runId), logger);
        if ('heldBy' in lock) {
          logger({ kind: 'warn', t: 0, message: `warm lab ${runId} is in use by ${lock.heldBy}; not destroyed` });
          continue;
        }
        try {
          const deadline = deadlineIn(DESTROY_MS);
          await destroyWarmLab(dir, spec, { deadline, logger, vagrant, ...(run ? { run } : {}) });
        } finally {
          await lock.release();
        }
      } else {
        const adapter = createVagrant({ ...vagrant, cwd: dir, logger });
        await adapter.destroy([], { provider: spec.provider, deadline: deadlineIn(DESTROY_MS) });
        await rm(dir, { recursive: true, force: true });
        await Promise.all(serialLogFiles(spec).map((f) => rm(f, { force: true })));
      }
      logger({ kind: 'info', t: 0, message: `destroyed lab ${runId} (${machines})${why ? `: ${why}` : ''}` });
    } catch (err) {
      failed++;
      if (!runId.startsWith(WARM_PREFIX)) await markTeardownFailed(dir, err);
      logger({
        kind: 'warn',
        t: 0,
        message: `could not destroy lab ${runId}: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  }
  // Note: a lab whose directory is gone is invisible above; its domains are found by where vagrant-libvirt says they came from
  if (sweeping && providerFor(config).host.orphanDomains) {
    try {
      failed += await destroyOrphanDomains({ deadline: deadlineIn(DESTROY_MS), logger, ...(run ? { run } : {}) });
    } catch (err) {
      failed++;
      logger({
        kind: 'warn',
        t: 0,
        message: `could not look for orphan domains (a lab whose directory is gone): ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
      });
    }
  }
  if (!chosen.length && !failed) {
    const none = found.length ? `no lab under ${config.lab.workDir} matched` : `no labs under ${config.lab.workDir}`;
    logger({ kind: 'info', t: 0, message: none });
  }
  if (stopHost) {
    // Note: read from libvirt's own pid files, not virsh: a domain of another work dir's lab or of a run in progress
    // (which destroy does not see) would lose its libvirtd and its DHCP mid-run
    const running = await runningDomains(qemuRunDir);
    if (running.length) {
      throw new HarnessError(
        `--host: the lab host was not stopped: ${running.length} VM${running.length === 1 ? '' : 's'} still run under its libvirtd (${running.join(', ')})`,
        {
          exitCode: EXIT.USAGE,
          hint: 'destroy their labs first (destroy <run-id>... or --all, with --work-dir where they were made), or let the run that owns them end; then destroy --host',
        },
      );
    }
    const stopped = await stopLabHost({
      deadline: deadlineIn(60_000),
      logger,
      ...(hostStateFile ? { stateFile: hostStateFile } : {}),
    });
    logger({
      kind: 'info',
      t: 0,
      message: stopped.length
        ? `lab host stopped: ${stopped.join(', ')}`
        : 'lab host: nothing the harness started is running',
    });
  }
  return failed ? EXIT.INFRA : EXIT.OK;
}
