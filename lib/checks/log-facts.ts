// Pure: client log lines worth a reader's eye after a fault, quoted as facts with their time (not verdicts: a restore
// that logs them may still end well). `network configuration check failed` (1.10+, a failed CNI CHECK: the namespace is
// recreated, and tasks reattached to the old one may stay there); `failed to restore task` (the task runner could not
// reattach and waits for the servers: expected after a host reboot, news after an agent restart).
import { oneLine } from './result.js';

/** The lines quoted, by fact key. */
const LOG_FACT_PATTERNS: Readonly<Record<string, string>> = {
  'client.log.network_check_failed': 'network configuration check failed',
  'client.log.failed_to_restore_task': 'failed to restore task',
};

/** At most this many lines are quoted per fact; the count says how many there were. */
const QUOTED = 5;
/** A start of the agent in its journal: the restore happens right after it. */
const AGENT_START = /==> (Starting Nomad agent|Nomad agent started)|Started nomad\.service/;
const HCLOG = /(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)\s+\[\w+\]\s+(.*)$/;
const JOURNAL = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4})\s/;

/** One quoted line: its time (hclog's own, else journald's) and its message from the logger name on. */
function quoteLogLine(line: string): string {
  const h = HCLOG.exec(line);
  if (h) return `${h[1]} ${oneLine(h[2]!)}`.slice(0, 300);
  const j = JOURNAL.exec(line);
  return `${j ? `${j[1]} ` : ''}${oneLine(line.slice(j ? j[0].length : 0))}`.slice(0, 300);
}

/** The lines since the agent last started (an agent restart keeps the boot's journal), else all of them. */
export function sinceLastAgentStart(lines: readonly string[]): string[] {
  let start = -1;
  lines.forEach((l, i) => {
    if (AGENT_START.test(l)) start = i;
  });
  // Note: the agent holds its log lines back until its banner is out (a gated writer), so they follow the last banner.
  return start < 0 ? [...lines] : lines.slice(start);
}

/** Facts from the client log after the fault: per pattern, how many lines and the first few with their time. */
export function logFacts(lines: readonly string[]): Record<string, string> {
  const since = sinceLastAgentStart(lines);
  const out: Record<string, string> = {};
  for (const [key, text] of Object.entries(LOG_FACT_PATTERNS)) {
    const hits = since.filter((l) => l.includes(text));
    if (!hits.length) continue;
    const quoted = hits.slice(0, QUOTED).map(quoteLogLine).join(' | ');
    out[key] = `${hits.length} line${hits.length === 1 ? '' : 's'}: ${quoted}${hits.length > QUOTED ? ' | ...' : ''}`;
  }
  return out;
}
