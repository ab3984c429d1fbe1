// Reboot a machine for real (guest-initiated or hypervisor reset) and wait until SSH answers with a NEW boot id.
import { HarnessError } from '../errors.js';
import type { ExecOptions, ExecResult, RebootKind, RebootRecord } from '../model/lab.js';
import type { Logger } from '../log/events.js';
import { deadlineIn, type Deadline } from '../run/deadline.js';
import { waitFor } from '../run/wait.js';
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
/** Bound for one boot-id probe over a fresh connection (connect ~4 s + the command). */
const PROBE_MS = 8000;
/** Bound for the command that schedules the reboot. */
const TRIGGER_MS = 20_000;

export interface RebootOptions {
  deadline: Deadline;
  /** the provider's power reset, required for kind 'hard' */
  hardReset?: () => Promise<void>;
  /** run with sudo for 'graceful'; injectable for tests */
  rebootCommand?: string;
  logger?: Logger;
  probeMs?: number;
}

/** Trigger a reboot of `kind` and poll the boot id over fresh connections until it changes; TimeoutError names the machine and the last thing seen. */
export async function rebootMachine(m: Rebootable, kind: RebootKind, opts: RebootOptions): Promise<RebootRecord> {
  const { deadline, hardReset, rebootCommand = GRACEFUL_REBOOT_COMMAND, logger, probeMs = PROBE_MS } = opts;
  const bootIdBefore = await m.bootId({ deadline });
  const requestedAt = Date.now();
  if (kind === 'hard') {
    if (!hardReset) throw new HarnessError(`hard reset of ${m.name}: this lab has no power-reset for its provider`);
    await hardReset();
  } else {
    try {
      const r = await m.exec(rebootCommand, { deadline: deadlineIn(TRIGGER_MS, deadline), sudo: true });
      if (r.code !== 0) throw new HarnessError(`reboot of ${m.name}: \`${rebootCommand}\` exited ${r.code}: ${r.stderr.trim().split('\n').slice(-5).join('\n')}`);
    } catch (err) {
      // Note: the machine may go down before the exit status arrives; a dropped connection is the expected outcome then.
      if (!(err instanceof SshError)) throw err;
      logger?.({ kind: 'info', t: Math.round(performance.now()), message: `${m.name}: connection dropped while requesting the reboot (expected)` });
    }
  }
  let lastSeen = '';
  const bootIdAfter = await waitFor(
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
      return id === bootIdBefore ? { done: false, reason: `boot_id unchanged (still ${id})` } : { done: true, value: id };
    },
    {
      deadline,
      intervals: [1000],
      onReason: (reason) => logger?.({ kind: 'wait', t: Math.round(performance.now()), what: `${m.name} reboot`, reason }),
    },
  );
  return { machine: m.name, kind, bootIdBefore, bootIdAfter, requestedAt, backAt: Date.now() };
}
