// The KVM probe: boot the box's own kernel and initrd directly under KVM (no disk, no network) and watch the serial
// console for the kernel reaching init; stop as soon as it does. Through lib/exec, bounded by a deadline.
import { performance } from 'node:perf_hooks';
import { CommandError } from '../../errors.js';
import { runCommand, type RunCommand } from '../../exec/run.js';
import { deadlineIn, type Deadline } from '../../time/deadlines.js';
import type { Logger } from '../../log/events.js';
import { INIT_LINE, plainLine, type KvmProbeOutput } from '../../parse/kvm-probe-console.js';

/** A stock kernel reaches init in 1-5 s under KVM; a minute leaves room for a loaded host and a slow initrd unpack. */
export const KVM_PROBE_BUDGET_MS = 60_000;
/** Enough memory for the kernel and the initramfs; the probe never reaches a root filesystem. */
const PROBE_MEMORY_MB = 256;
/** panic=-1 with -no-reboot makes QEMU exit when the kernel gives up (no root= is given on purpose). */
const APPEND = 'console=ttyS0 panic=-1 loglevel=6 mitigations=off';

/** argv of the probe: the box's kernel + initrd under KVM with the host's CPU, serial console on stdout. */
export function kvmProbeArgv(kernel: string, initrd: string): [string, string[]] {
  return [
    'qemu-system-x86_64',
    [
      '-enable-kvm',
      '-cpu',
      'host',
      '-m',
      String(PROBE_MEMORY_MB),
      '-smp',
      '1',
      '-kernel',
      kernel,
      '-initrd',
      initrd,
      '-append',
      APPEND,
      '-nographic',
      '-no-reboot',
      '-nic',
      'none',
    ],
  ];
}

/** A sentinel abort reason: the init line was seen, stop QEMU (not an interrupt, not a timeout). */
class SawInit {}

interface KvmProbeOptions {
  kernel: string;
  initrd: string;
  /** the caller's deadline; the probe takes at most KVM_PROBE_BUDGET_MS of it */
  deadline: Deadline;
  budgetMs?: number;
  run?: RunCommand;
  logger?: Logger;
}

/** Run the probe and return what it saw (never throws for a failed boot; rethrows an interrupt). */
export async function runKvmProbe(o: KvmProbeOptions): Promise<KvmProbeOutput> {
  const { budgetMs = KVM_PROBE_BUDGET_MS, run = runCommand } = o;
  const d = deadlineIn(budgetMs, o.deadline);
  const stop = new AbortController();
  const console: string[] = [];
  const stderr: string[] = [];
  const t0 = performance.now();
  const [file, args] = kvmProbeArgv(o.kernel, o.initrd);
  const onLine = (stream: 'stdout' | 'stderr', line: string) => {
    (stream === 'stdout' ? console : stderr).push(line);
    if (stream === 'stdout' && INIT_LINE.test(plainLine(line)) && !stop.signal.aborted) stop.abort(new SawInit());
  };
  const base = { console, stderr, budgetMs };
  try {
    const r = await run(file, args, {
      deadline: { at: d.at, signal: AbortSignal.any([d.signal, stop.signal]) },
      onLine,
      allowedCodes: [0],
      ...(o.logger ? { logger: o.logger } : {}),
    });
    return { ...base, end: 'exited', exitCode: r.code, durationMs: performance.now() - t0 };
  } catch (err) {
    const durationMs = performance.now() - t0;
    if (err instanceof SawInit) return { ...base, end: 'saw-init', durationMs };
    if (!(err instanceof CommandError)) throw err;
    if (err.timedOut) return { ...base, end: 'timed-out', durationMs };
    if (!stderr.length && err.stderrTail) stderr.push(...err.stderrTail.split('\n'));
    if (err.code === undefined) return { ...base, end: 'crashed', durationMs };
    return { ...base, end: 'exited', exitCode: err.code, durationMs };
  }
}
