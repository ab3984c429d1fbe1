// The client's read of the Nomad agent's own resources over a window (open fds, executor and logging plugin
// processes), sampled on the host in one command, and its pure parser.
import type { AgentSample } from '../model/evidence.js';

/**
 * A POSIX sh command (root) taking `count` samples `intervalS` apart, each one line
 * `S <unix ms> <agent pid> <open fds> <executors> <logmons> <docker_loggers>`. The agent is nomad.service's main
 * process, else the process whose arguments include `agent`; plugin processes are counted by their subcommand argument
 * (`nomad executor`, `nomad logmon`, `nomad docker_logger`: drivers/shared/executor/utils.go, client/logmon/plugin.go).
 */
export function agentSamplesCommand(count: number, intervalS: number): string {
  const n = Math.max(1, Math.floor(count));
  const pause = Math.max(0, intervalS);
  // Note: the bracket keeps grep from counting itself (its own argument would otherwise be the word it looks for).
  const pidsOf = (arg: string) =>
    `grep -l -a -z -x '${arg.slice(0, -1)}[${arg.slice(-1)}]' /proc/[0-9]*/cmdline 2>/dev/null`;
  const procs = (arg: string) => `$(${pidsOf(arg)} | wc -l)`;
  return [
    `i=0; while [ "$i" -lt ${n} ]; do`,
    '  p=$(systemctl show -p MainPID --value nomad 2>/dev/null)',
    `  if [ -z "$p" ] || [ "$p" = 0 ]; then p=$(${pidsOf('agent')} | head -n 1 | cut -d/ -f3); fi`,
    '  f=$(ls "/proc/${p:-0}/fd" 2>/dev/null | wc -l)',
    `  echo "S $(date +%s%3N) \${p:-0} $f ${procs('executor')} ${procs('logmon')} ${procs('docker_logger')}"`,
    `  i=$((i + 1)); [ "$i" -lt ${n} ] && sleep ${pause}`,
    'done',
    'true',
  ].join('\n');
}

/** Parse agentSamplesCommand's output, oldest first; malformed lines are skipped. */
export function parseAgentSamples(text: string): AgentSample[] {
  const out: AgentSample[] = [];
  for (const line of text.split('\n')) {
    const m = /^S (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$/.exec(line.trim());
    if (!m) continue;
    const [atMs, pid, fds, executors, logmons, dockerLoggers] = m.slice(1).map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    out.push({ atMs, pid, fds, executors, logmons, dockerLoggers });
  }
  return out;
}
