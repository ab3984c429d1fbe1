// Pure: the Nomad agent's own warnings and errors since the fault, from its journal (`journalctl -u nomad -o
// short-iso`, each line carrying hclog's own timestamp and level). Facts for the report, never a verdict: a restore
// that logs errors may still end well, and which lines matter is the reader's call.
import type { TimelineEvent } from '../model/run.js';
import { oneLine } from './result.js';

/** One WARN or ERROR line of the agent. */
interface AgentLogLine {
  /** hclog's time, Unix ms */
  atMs: number;
  level: 'WARN' | 'ERROR';
  /** the logger's name and the message, as one line */
  message: string;
}

/** hclog's line inside a journal line: `2026-12-02T12:23:32.531Z [ERROR] client.driver_mgr.exec: failed …`. */
const HCLOG = /(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)\s+\[(WARN|ERROR)\]\s+(.*)$/;
/** Lines quoted on the report at most; the count says how many there were. */
export const MAX_AGENT_LINES = 30;
/** Longest message kept of one line. */
const MAX_MESSAGE = 400;

/** Every WARN or ERROR line at or after `sinceMs`, in the log's order. Lines of other levels are skipped. */
export function agentWarnings(lines: readonly string[], sinceMs: number): AgentLogLine[] {
  const out: AgentLogLine[] = [];
  for (const line of lines) {
    const m = HCLOG.exec(line);
    if (!m) continue;
    const atMs = Date.parse(m[1]!);
    if (!Number.isFinite(atMs) || atMs < sinceMs) continue;
    const message = oneLine(m[3]!);
    out.push({
      atMs,
      level: m[2] as AgentLogLine['level'],
      message: message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message,
    });
  }
  return out;
}

/** The label every agent line has on the timeline (the HTML report lists the lines by it). */
export const AGENT_LINE_LABEL = 'nomad agent';

/** The first MAX_AGENT_LINES lines as timeline events of `machine` (the host lane). */
export function agentWarningEvents(lines: readonly AgentLogLine[], machine: string): TimelineEvent[] {
  return lines.slice(0, MAX_AGENT_LINES).map((l) => ({
    atMs: l.atMs,
    lane: 'host',
    machine,
    label: `${AGENT_LINE_LABEL} ${l.level}`,
    detail: l.message,
    severity: l.level === 'ERROR' ? 'fail' : 'warn',
  }));
}

/** The count as a property: "3 since the fault (1 WARN, 2 ERROR)", or "none since the fault". */
export function agentWarningsFact(lines: readonly AgentLogLine[]): string {
  if (!lines.length) return 'none since the fault';
  const n = (lvl: AgentLogLine['level']) => lines.filter((l) => l.level === lvl).length;
  const shown = lines.length > MAX_AGENT_LINES ? `; the first ${MAX_AGENT_LINES} on the timeline` : '';
  return `${lines.length} since the fault (${n('WARN')} WARN, ${n('ERROR')} ERROR)${shown}`;
}
