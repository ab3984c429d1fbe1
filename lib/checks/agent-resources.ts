// Check: the client agent's open fds and its plugin processes (executors, logmons, docker loggers) do not keep growing
// over a window after the fault. A leak is steady: one pidfd a second per reattached plugin on real 1.9.7 after an agent
// restart (52 -> 180 fds in 30 s with four plugins), while a healthy agent moves by a few fds (40 -> 37). Pure.
import { resultCheck } from './define.js';
import { iso, result } from './result.js';
import { notInPlaceReason, notRead } from './whole-alloc.js';
import { skippedResult } from './result.js';
import type { AgentSample, RebootEvidence } from '../model/evidence.js';
import type { CheckResult } from '../model/check.js';

/**
 * The fd rise (the sum of every increase between samples, so a sawtooth the Go GC cuts still counts) that fails the
 * check: at least FD_RISE_MIN fds and FD_RISE_PER_S a second of the window. Healthy real 1.9.7 agents rose 7 and 5 in
 * 30 s (0.2/s); one leaking plugin alone rises 1/s.
 */
const FD_RISE_PER_S = 0.5;
const FD_RISE_MIN = 10;
/** Plugin processes added over the window that fail it: the harness restarts no task meanwhile, so a healthy client starts none. */
const PLUGIN_RISE_LIMIT = 2;

export const AGENT_RESOURCES = resultCheck<RebootEvidence>(
  {
    id: 'agent-resources',
    title: 'Agent resources steady',
    passesWhen: `over \`reboot.resources_window\` after the fault the agent keeps its pid, its fds do not rise by ${FD_RISE_MIN}+ at ${FD_RISE_PER_S}/s or faster, and its plugin processes grow by under ${PLUGIN_RISE_LIMIT}`,
    details: `over a window after the fault (\`reboot.resources_window\`, samples of \`/proc/<agent>/fd\` and of the \`nomad executor\`, \`logmon\` and \`docker_logger\` processes on the client) the agent keeps its pid, its open fds do not rise by ${FD_RISE_MIN} or more at ${FD_RISE_PER_S}/s or faster (every increase counted, so a sawtooth the Go GC cuts still counts), and its plugin processes grow by fewer than ${PLUGIN_RISE_LIMIT}. Real 1.9.7 after an agent restart: +128 fds in 30 s (GH-27885, fixed in 2.0.1). Skipped for a partition`,
  },
  checkAgentResources,
);

/** Passes when the agent kept its pid and its fds and plugin processes did not keep growing over the window. */
export function checkAgentResources(e: RebootEvidence): CheckResult {
  const { id, title } = AGENT_RESOURCES;
  const why = notInPlaceReason(e.reboot.kind);
  if (why) return skippedResult(AGENT_RESOURCES, why);
  const missing = notRead(e, 'agent', !!e.whole?.agent);
  if (missing) return skippedResult(AGENT_RESOURCES, `the agent was not sampled: ${missing}`);
  const samples = e.whole!.agent!.samples;
  if (samples.length < 2)
    return skippedResult(
      AGENT_RESOURCES,
      `${samples.length} sample${samples.length === 1 ? '' : 's'} of the agent: a window needs two`,
    );
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const seconds = Math.max(1, (last.atMs - first.atMs) / 1000);
  const evidence = [
    `window ${seconds.toFixed(0)}s from ${iso(first.atMs)} (client clock), every ${e.whole!.agent!.intervalS}s:`,
    ...samples.map((s) => {
      const at = ((s.atMs - first.atMs) / 1000).toFixed(0);
      return `  +${at}s pid ${s.pid}: ${s.fds} fds, ${s.executors} executors, ${s.logmons} logmons, ${s.dockerLoggers} docker loggers`;
    }),
  ];
  const pids = [...new Set(samples.map((s) => s.pid))];
  if (pids.includes(0))
    return result(
      id,
      title,
      'failed',
      'the agent was not running at every sample (no nomad.service main process)',
      evidence,
    );
  if (pids.length > 1)
    return result(id, title, 'failed', `the agent restarted during the window (pid ${pids.join(' -> ')})`, evidence);
  const fdRise = riseOf(samples, (s) => s.fds);
  const rate = fdRise / seconds;
  const pluginRise = plugins(last) - plugins(first);
  const summary = `fds ${first.fds} -> ${last.fds} (every increase: +${fdRise}, ${rate.toFixed(2)}/s), plugin processes ${plugins(first)} -> ${plugins(last)}`;
  evidence.push(summary);
  const leak = `its open fds keep growing: +${fdRise} in ${seconds.toFixed(0)}s (${rate.toFixed(2)}/s; a healthy agent stays under ${FD_RISE_PER_S}/s)`;
  const problems = [
    ...(fdRise >= FD_RISE_MIN && rate >= FD_RISE_PER_S ? [leak] : []),
    ...(pluginRise >= PLUGIN_RISE_LIMIT
      ? [`${pluginRise} more plugin processes at the end of the window than at its start`]
      : []),
  ];
  if (problems.length) return result(id, title, 'failed', `agent pid ${first.pid}: ${problems.join('; ')}`, evidence);
  return result(id, title, 'passed', `agent pid ${first.pid} steady over ${seconds.toFixed(0)}s: ${summary}`, evidence);
}

const plugins = (s: AgentSample) => s.executors + s.logmons + s.dockerLoggers;

/** The sum of every increase of `f` between consecutive samples. */
export function riseOf(samples: AgentSample[], f: (s: AgentSample) => number): number {
  return samples.slice(1).reduce((sum, s, i) => sum + Math.max(0, f(s) - f(samples[i]!)), 0);
}
