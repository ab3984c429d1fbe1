// Pure: did a KVM boot of the box's kernel get far enough to prove KVM works? Judged from the serial console and
// QEMU's own messages (recorded samples: test/fixtures/kvm-probe/).

/** How the probe's QEMU ended. */
type ProbeEnd = 'saw-init' | 'exited' | 'crashed' | 'timed-out';

/** What the probe collected: console and stderr lines in order, how it ended, and how long it ran. */
export interface KvmProbeOutput {
  console: string[];
  stderr: string[];
  end: ProbeEnd;
  exitCode?: number;
  durationMs: number;
  /** the probe's budget, for the message when it ran out */
  budgetMs: number;
}

interface KvmVerdict {
  boots: boolean;
  /** one line: why KVM is (not) usable here */
  reason: string;
  /**
   * false when qemu never got as far as running a guest (not found, bad arguments, an unreadable kernel): the probe
   * learnt nothing about KVM, so the answer must not be kept
   */
  answered: boolean;
}

/** Kernel lines that prove it reached kernel init (the last step before userspace) or userspace itself. */
export const INIT_LINE = /Run \/\S*init as init process|Freeing unused kernel image/;
const MSR = /failed to set MSR (0x[0-9a-f]+)(?: to (0x[0-9a-f]+))?/i;
const NO_ACCESS = new RegExp(
  ['Could not access KVM kernel module', 'failed to initialize kvm', '/dev/kvm.*(Permission denied|No such file)'].join(
    '|',
  ),
  'i',
);

/** A stderr line about KVM itself ("KVM internal error", "kvm run failed"): qemu got as far as running the guest. */
const KVM_WORD = /\bKVM\b|\bkvm run failed\b/;

/** Remove terminal escapes (SeaBIOS clears the screen) and carriage returns from a console line. */
export function plainLine(line: string): string {
  return line
    .replace(/\x1b(\[[0-9;?]*[A-Za-z]|c)/g, '')
    .replace(/\r/g, '')
    .trim();
}

/** The first console line that proves the kernel reached init, if any. */
export function initLine(lines: readonly string[]): string | undefined {
  return lines.map(plainLine).find((l) => INIT_LINE.test(l));
}

/** Judge one probe: boots only when the console shows the kernel reaching init. */
export function judgeKvmProbe(o: KvmProbeOutput): KvmVerdict {
  const seen = initLine(o.console);
  const secs = (ms: number) => `${Math.round(ms / 1000)} s`;
  if (seen) {
    const line = seen.replace(/^\[[^\]]*\]\s*/, '');
    return {
      boots: true,
      answered: true,
      reason: `KVM boots the box kernel to init in ${secs(o.durationMs)} ("${line}")`,
    };
  }
  const err = o.stderr.map(plainLine).filter(Boolean);
  const msr = err.map((l) => MSR.exec(l)).find(Boolean);
  if (msr) {
    const why = 'this KVM cannot run a stock guest CPU (e.g. kvm_pvm)';
    return { boots: false, answered: true, reason: `qemu -enable-kvm -cpu host aborts with "${msr[0]}": ${why}` };
  }
  const access = err.find((l) => NO_ACCESS.test(l));
  if (access) {
    const reason = `qemu cannot use KVM: ${access.replace(/^qemu-system-x86_64:\s*/, '')}`;
    return { boots: false, answered: true, reason };
  }
  const last = o.console.map(plainLine).filter(Boolean).at(-1);
  const lastSeen = last ? `last console line "${last}"` : 'no console output at all';
  if (o.end === 'timed-out') {
    const reason = `the box kernel did not reach init under KVM within ${secs(o.budgetMs)} (${lastSeen})`;
    return { boots: false, answered: true, reason };
  }
  const how = o.end === 'crashed' ? 'crashed' : `exited ${o.exitCode ?? '?'}`;
  const why = err.at(-1) ? `: ${err.at(-1)}` : '';
  // Ended with the guest silent and nothing about KVM on stderr: qemu did not start a guest at all.
  if (!last && !err.some((l) => KVM_WORD.test(l))) {
    return { boots: false, answered: false, reason: `the KVM probe could not start: qemu ${how} (${lastSeen})${why}` };
  }
  return {
    boots: false,
    answered: true,
    reason: `qemu ${how} before the kernel reached init under KVM (${lastSeen})${why}`,
  };
}
