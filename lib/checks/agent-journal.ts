// Pure: what the Nomad unit's journal says about the agent itself, read line by line as journalctl prints it
// (`<iso time> <host> <ident>[<pid>]: <text>`): crash lines of the Go runtime, systemd restarting the unit, and the
// lines an agent must never log after a fault. The sentinel checks (no-agent-crash, agent-log-invariants) quote them.
import type { AgentJournalRead } from '../model/sentinels.js';
import { oneLine } from './result.js';

/** What the Go runtime prints when a process dies of a bug; any of them in an agent's journal is a crash. */
export const CRASH_PATTERNS: readonly string[] = ['panic:', 'fatal error:', 'concurrent map', 'SIGSEGV'];

/** systemd's line when Restart= brought the unit back (a graceful stop or `systemctl restart` never logs it). */
const SYSTEMD_RESTART = /nomad(\.service)?: Scheduled restart job, restart counter is at (\d+)/;
/** systemd's line when the unit's main process ended (quoted next to a restart: why it ended). */
const MAIN_EXITED = /nomad(\.service)?: Main process exited, (.*)$/;
/** journalctl's time at the start of a line: short-iso (`+0000`) or short-iso-precise (with fractions). */
const JOURNAL_TIME = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)([+-]\d\d):?(\d\d)\s/;

/** A journal time with fractions of a second (short-iso-precise). */
const PRECISE = /^\S+T\d\d:\d\d:\d\d\./;

/** A line's journal time in Unix ms, undefined when it carries none. */
export function journalTimeMs(line: string): number | undefined {
  const m = JOURNAL_TIME.exec(line);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}${m[2]}:${m[3]}`);
  return Number.isFinite(ms) ? ms : undefined;
}

/** One line quoted: machine, boot, and the line itself (its time included), shortened. */
interface QuotedLine {
  machine: string;
  boot: string;
  atMs?: number;
  text: string;
}

/** `client-1 boot -1: 2026-12-04T15:08:47.498+0000 client-1 nomad[812]: panic: ...` */
export function quoteLine(q: QuotedLine): string {
  return `${q.machine} boot ${q.boot}: ${oneLine(q.text).slice(0, 300)}`;
}

/** Every line of `agent`'s journals at or after `sinceMs` (lines without a time follow the last timed one). */
export function linesSince(agent: AgentJournalRead, sinceMs: number): QuotedLine[] {
  const out: QuotedLine[] = [];
  // Note: the boots are read oldest first; a line without a time (a Go trace's continuation) keeps its boot's state
  for (const b of agent.boots) {
    let inside = false;
    for (const text of b.lines) {
      const atMs = journalTimeMs(text);
      // a time to the second (short-iso) may be up to 999 ms earlier than the moment it stands for
      if (atMs !== undefined) inside = atMs + (PRECISE.test(text) ? 0 : 999) >= sinceMs;
      if (inside) out.push({ machine: agent.machine, boot: b.boot, text, ...(atMs !== undefined ? { atMs } : {}) });
    }
  }
  return out;
}

/** A crash: its first line and the lines right after it (the trace's head), for the report. */
interface CrashSeen {
  first: QuotedLine;
  /** the lines following the first (goroutine header, the frames), at most TRACE_HEAD */
  trace: string[];
}

/** Crash lines this close together are one crash (`panic:`, then `[signal SIGSEGV ...]`). */
const TRACE_LINES = 4;
/**
 * Lines of a trace quoted after its first: past `[signal ...]` and the goroutine header, the function that panicked
 * and its caller (each frame is two lines), which a known issue's signature names (the aead wrapper's Decrypt is
 * GH-24383 when the keystore read called it, GH-24442 when the state upsert did).
 */
const TRACE_HEAD = 8;

/** The crashes in `agent`'s journals since `sinceMs`: one per run of crash lines (a trace counts once). */
export function crashesOf(agent: AgentJournalRead, sinceMs: number): CrashSeen[] {
  const lines = linesSince(agent, sinceMs);
  const out: CrashSeen[] = [];
  let lastAt = -Infinity;
  lines.forEach((l, i) => {
    if (!CRASH_PATTERNS.some((p) => messageOf(l.text).includes(p))) return;
    // the lines of one trace follow each other closely: `panic:` then `[signal SIGSEGV ...]` are one crash
    if (i - lastAt <= TRACE_LINES) {
      lastAt = i;
      return;
    }
    lastAt = i;
    // the trace is the crashing process's own lines: systemd's "Main process exited" after it is not a frame
    const head = lines.slice(i + 1, i + 1 + TRACE_HEAD);
    const theirs = head.findIndex((t) => writerOf(t.text) !== writerOf(l.text));
    const trace = theirs < 0 ? head : head.slice(0, theirs);
    out.push({ first: l, trace: trace.map((t) => messageOf(t.text)) });
  });
  return out;
}

/** journalctl's `<ident>[<pid>]` of a line (undefined when it has no prefix). */
function writerOf(line: string): string | undefined {
  return /^\S+\s+\S+\s+([^\s:]+(?:\[\d+\])?):\s/.exec(line)?.[1];
}

/** The text after journalctl's `<time> <host> <ident>[<pid>]: ` prefix (the whole line when it has none). */
function messageOf(line: string): string {
  const m = /^\S+\s+\S+\s+[^\s:]+(?:\[\d+\])?:\s(.*)$/.exec(line);
  return m ? m[1]! : line;
}

/** systemd's restarts of the unit since `sinceMs`, each with the exit that caused it when it was logged. */
export function restartsOf(agent: AgentJournalRead, sinceMs: number): { line: QuotedLine; cause?: string }[] {
  const lines = linesSince(agent, sinceMs);
  const out: { line: QuotedLine; cause?: string }[] = [];
  lines.forEach((l, i) => {
    if (!SYSTEMD_RESTART.test(l.text)) return;
    const exited = lines
      .slice(Math.max(0, i - 6), i)
      .reverse()
      .find((p) => MAIN_EXITED.test(p.text));
    out.push({ line: l, ...(exited ? { cause: MAIN_EXITED.exec(exited.text)![2]! } : {}) });
  });
  return out;
}

/** `systemctl show nomad -p ...` output as key=value pairs. */
export function parseUnitShow(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

/** One rule of the agent-log invariants: a line containing every one of `all` must not appear after a fault. */
export interface LogInvariant {
  all: readonly string[];
  /** why the line matters, one line */
  why: string;
  /** the line is expected on a machine whose host a fault rebooted (it is news only when the host stayed up) */
  unlessHostRebooted?: boolean;
}

/** The shipped invariants: lines a healthy agent does not log after a fault, whatever the fault. */
export const SHIPPED_INVARIANTS: readonly LogInvariant[] = [
  {
    all: ['Alloc.GetAllocs', 'Permission denied'],
    why: "the client cannot read its allocs from the servers (its node identity or the servers' ACL state lost)",
  },
  {
    all: ['keyring has not been initialized'],
    why: 'a server without its root keyring cannot sign or decrypt (nomad#25897)',
  },
  {
    all: ['failed to restore'],
    why: 'the agent could not reattach to its tasks although the host stayed up',
    unlessHostRebooted: true,
  },
  { all: ['error restoring alloc'], why: "the client could not rebuild an alloc's runner from its state" },
];

/** A line the invariants catch, with the rule that caught it. */
interface InvariantHit {
  line: QuotedLine;
  rule: LogInvariant;
}

/**
 * The lines of `agent` since `sinceMs` that a rule catches and no allowed text excuses. `hostRebooted`: a fault
 * rebooted this machine's host in the run.
 */
export function invariantHits(
  agent: AgentJournalRead,
  sinceMs: number,
  rules: readonly LogInvariant[],
  allowed: readonly string[],
  hostRebooted: boolean,
): InvariantHit[] {
  const out: InvariantHit[] = [];
  for (const line of linesSince(agent, sinceMs)) {
    const text = messageOf(line.text);
    if (allowed.some((a) => text.includes(a))) continue;
    const rule = rules.find((r) => !(r.unlessHostRebooted && hostRebooted) && r.all.every((s) => text.includes(s)));
    if (rule) out.push({ line, rule });
  }
  return out;
}
