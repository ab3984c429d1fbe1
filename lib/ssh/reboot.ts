// Reboot a machine for real (guest-initiated or hypervisor reset) and wait until SSH answers with a NEW boot id.
import { HarnessError, TimeoutError } from '../errors.js';
import type { ExecOptions, ExecResult, FaultMark, RebootKind, RebootRecord } from '../model/lab.js';
import type { Logger } from '../log/events.js';
import { deadlineIn, sleep, type Deadline } from '../time/deadlines.js';
import { waitFor } from '../time/wait-for.js';
import { SshError } from './connect.js';

/** What a reboot needs from a machine (SshMachine satisfies it). */
export interface Rebootable {
  readonly name: string;
  exec(cmd: string, opts: ExecOptions): Promise<ExecResult>;
  bootId(opts: { deadline: Deadline }): Promise<string>;
  disconnect(): Promise<void>;
}

/** Reboot one second from now through a transient systemd timer, so our command returns before the connection drops. */
export const GRACEFUL_REBOOT_COMMAND = 'systemd-run --on-active=1 --timer-property=AccuracySec=100ms systemctl reboot';
/** Before a panic: reboot 5 s after a panic (the guest then restarts itself) and allow the sysrq trigger. */
const PANIC_PREPARE_COMMAND = 'sysctl -w kernel.panic=5 kernel.sysrq=1';
/** A kernel panic one second from now (so our command returns first), through the sysrq crash trigger. */
const PANIC_COMMAND =
  "systemd-run --on-active=1 --timer-property=AccuracySec=100ms /bin/sh -c 'echo c > /proc/sysrq-trigger'";
/** The kinds rebootMachine does: a reboot of one machine. */
const ONE_MACHINE_REBOOTS = ['graceful', 'hard', 'panic', 'power-off'] as const;
/** Bound for one boot-id probe over a fresh connection (connect ~4 s + the command). */
const PROBE_MS = 8000;
/** Bound for the command that schedules the reboot. */
const TRIGGER_MS = 20_000;

export interface RebootOptions {
  deadline: Deadline;
  /** the provider's power reset, required for kind 'hard' */
  hardReset?: () => Promise<void>;
  /** the provider's power off and on, required for kind 'power-off' */
  powerOff?: () => Promise<void>;
  powerOn?: () => Promise<void>;
  /** how long power-off keeps the machine off */
  offForMs?: number;
  /** run with sudo for 'graceful'; injectable for tests */
  rebootCommand?: string;
  logger?: Logger;
  probeMs?: number;
  /** the error for a machine not back by the deadline (the lab adds its serial console); default: the timeout */
  notBack?: (err: TimeoutError) => Promise<Error>;
}

/** Trigger a reboot of `kind` and poll the boot id over fresh connections until it changes; TimeoutError names the machine and the last thing seen. */
export async function rebootMachine(m: Rebootable, kind: RebootKind, opts: RebootOptions): Promise<RebootRecord> {
  const { deadline, hardReset, logger, probeMs = PROBE_MS } = opts;
  // a kind done elsewhere (disrupt*.ts, power-all.ts) must never fall through to a graceful reboot here
  if (!(ONE_MACHINE_REBOOTS as readonly string[]).includes(kind))
    throw new HarnessError(`${kind} is not a reboot of one machine: see lib/lab/perform.ts`, { exitCode: 70 });
  const bootIdBefore = await m.bootId({ deadline });
  const marks: FaultMark[] = [];
  if (kind === 'panic') {
    const r = await m.exec(PANIC_PREPARE_COMMAND, { deadline: deadlineIn(TRIGGER_MS, deadline), sudo: true });
    if (r.code !== 0)
      throw new HarnessError(`panic of ${m.name}: \`${PANIC_PREPARE_COMMAND}\` exited ${r.code}: ${r.stderr.trim()}`);
  }
  const requestedAt = Date.now();
  if (kind === 'hard') {
    if (!hardReset) throw new HarnessError(`hard reset of ${m.name}: this lab has no power-reset for its provider`);
    await hardReset();
  } else if (kind === 'power-off') {
    const { powerOff, powerOn, offForMs = 0 } = opts;
    if (!powerOff || !powerOn)
      throw new HarnessError(`power-off of ${m.name}: this lab has no power off/on for its provider`);
    await powerOff();
    marks.push({
      atMs: Date.now(),
      label: 'powered off',
      detail: `for ${(offForMs / 1000).toFixed(0)} s (reboot.off_for)`,
    });
    await m.disconnect();
    // Note: a deliberate hold (the length of the outage under test), not a poll
    await sleep(offForMs, deadline);
    await powerOn();
    marks.push({ atMs: Date.now(), label: 'powered on' });
  } else {
    const rebootCommand = kind === 'panic' ? PANIC_COMMAND : (opts.rebootCommand ?? GRACEFUL_REBOOT_COMMAND);
    if (kind === 'panic')
      marks.push({
        atMs: Date.now() + 1000,
        label: 'kernel panic (sysrq c)',
        detail: 'kernel.panic=5: the guest reboots itself 5 s later',
      });
    try {
      const r = await m.exec(rebootCommand, { deadline: deadlineIn(TRIGGER_MS, deadline), sudo: true });
      if (r.code !== 0)
        throw new HarnessError(
          `reboot of ${m.name}: \`${rebootCommand}\` exited ${r.code}: ${r.stderr.trim().split('\n').slice(-5).join('\n')}`,
        );
    } catch (err) {
      // Note: the machine may go down before the exit status arrives; a dropped connection is the expected outcome then.
      if (!(err instanceof SshError)) throw err;
      logger?.({
        kind: 'info',
        t: Math.round(performance.now()),
        message: `${m.name}: connection dropped while requesting the reboot (expected)`,
      });
    }
  }
  const bootIdAfter = await waitForNewBootId(m, bootIdBefore, opts);
  return {
    machine: m.name,
    kind,
    bootIdBefore,
    bootIdAfter,
    requestedAt,
    backAt: Date.now(),
    ...(marks.length ? { marks } : {}),
  };
}

/** Poll the boot id over fresh connections until it differs from `before`; a timeout goes through `opts.notBack`. */
export async function waitForNewBootId(m: Rebootable, bootIdBefore: string, opts: RebootOptions): Promise<string> {
  const { deadline, logger, probeMs = PROBE_MS } = opts;
  let lastSeen = '';
  try {
    return await waitFor(
      `${m.name} to answer over SSH with a new boot_id (was ${bootIdBefore})`,
      async (d) => {
        await m.disconnect(); // a fresh connection each time: the old one may be half-open after a reset
        let id: string;
        try {
          id = await m.bootId({ deadline: deadlineIn(probeMs, d) });
        } catch (err) {
          const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
          return { done: false, reason: `${msg}${lastSeen ? ` (last boot_id seen: ${lastSeen})` : ''}` };
        }
        lastSeen = id === bootIdBefore ? `still ${id}` : id;
        if (id === bootIdBefore) return { done: false, reason: `boot_id unchanged (still ${id})` };
        return { done: true, value: id };
      },
      {
        deadline,
        intervals: [1000],
        onReason: (reason) =>
          logger?.({ kind: 'wait', t: Math.round(performance.now()), what: `${m.name} reboot`, reason }),
      },
    );
  } catch (err) {
    if (err instanceof TimeoutError && opts.notBack) throw await opts.notBack(err);
    throw err;
  }
}
