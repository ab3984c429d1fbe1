// Human summary at the end of a run: what went wrong first (with evidence), then the rest, then one line per run. Pure.
import { painter, type Paint } from '../log/ansi.js';
import { checkCaseName } from './case-name.js';
import { formatMs } from '../errors.js';
import type { Verdict } from '../model/check.js';
import { countVerdicts } from './outcome.js';
import type { RunRecord } from '../model/run.js';
import type { SessionReport } from '../model/session.js';
import { renderComparison } from './compare.js';
import { renderFlakeReports } from './flaky.js';
import { findingsOf, labelText } from '../known-issues/label.js';

interface ConsoleOptions {
  color: boolean;
}

const MARK: Record<Verdict['label'], string> = {
  passed: 'ok',
  failed: 'FAIL',
  'expected failure': 'xfail',
  'unexpected pass': 'XPASS',
  skipped: 'skip',
};

function verdictLines(v: Verdict, paint: Paint, withEvidence: boolean): string[] {
  const color = !v.met ? 'red' : v.label === 'passed' ? 'green' : 'yellow';
  // Note: the mark already says passed/failed/skipped; only the expectation labels add to it.
  const said = v.label === 'expected failure' || v.label === 'unexpected pass' ? `${v.label}: ` : '';
  const known = v.knownIssue
    ? ` — ${paint(v.knownIssue.kind === 'known' ? 'yellow' : 'red', labelText(v.knownIssue))}`
    : '';
  const head = `  ${paint(color, MARK[v.label].padEnd(5))} ${checkCaseName(v)}: ${said}${v.message}${known}`;
  return withEvidence ? [head, ...v.evidence.map((e) => `        ${paint('dim', e)}`)] : [head];
}

/** One line for the checks a run did not reach: how many, their ids (the first few) and why, without the error again. */
function notReachedLine(r: RunRecord, vs: readonly Verdict[], paint: Paint): string {
  const ids = vs.slice(0, 4).map((v) => v.id);
  const more = vs.length > ids.length ? ` and ${vs.length - ids.length} more` : '';
  const why = r.interrupted
    ? `the run was interrupted${r.error?.step ? ` in step "${r.error.step}"` : ''}`
    : r.error
      ? `the run broke${r.error.step ? ` in step "${r.error.step}"` : ''} (the error above)`
      : vs[0]!.message.replace(/^not reached: /, '');
  return `  ${paint('yellow', MARK.skipped.padEnd(5))} ${vs.length} checks not reached (${ids.join(', ')}${more}): ${why}`;
}

/** One line per run: PASS|FAIL|ERROR <suite> — N checks: a passed, b expected failures, c failed, d skipped (12.3s). */
function runLine(r: RunRecord, paint: Paint = (_c, s) => s): string {
  const n = countVerdicts(r.verdicts);
  const word =
    r.outcome === 'passed'
      ? paint('green', 'PASS')
      : r.outcome === 'failed'
        ? paint('red', 'FAIL')
        : paint('red', 'ERROR');
  return `${word} ${r.suiteName} — ${n.total} checks: ${n.passed} passed, ${n.expectedFailures} expected failures, ${n.failed} failed, ${n.skipped} skipped (${formatMs(r.durationMs)})${labNote(r.properties)}`;
}

/** How the run got its lab (warm reruns): " [warm lab <key>, snapshot 42 s old]", " [cold lab, ...]" or nothing. */
export function labNote(p: Readonly<Record<string, string>>): string {
  const warm = p['lab.warm'];
  if (warm === undefined) return '';
  const key = p['lab.snapshot.key'];
  if (warm === 'yes') return ` [warm lab ${key ?? '?'}, snapshot ${p['lab.snapshot.age_s'] ?? '?'} s old]`;
  if (p['lab.snapshot.created']) return ` [cold lab; snapshot ${key ?? '?'} taken for the next run]`;
  return ` [cold lab]`;
}

/** Render the end-of-run summary: failures and errors first with their evidence, then the other verdicts, then a line per run. */
export function renderConsoleSummary(runs: readonly RunRecord[], opts: ConsoleOptions): string {
  const paint = painter(opts.color);
  const problems: string[] = [];
  const rest: string[] = [];
  for (const r of runs) {
    const bad: string[] = [];
    if (r.error) {
      bad.push(`  ${paint('red', 'ERROR')} ${r.error.step ? `in step "${r.error.step}": ` : ''}${r.error.message}`);
      // Note: the message is the command's last words; what it printed before (vagrant up's output, the consoles) is
      // in the logs the run kept, so the error points at them
      const logs = r.artifacts.filter((a) => a.name.endsWith('.log')).map((a) => a.path);
      if (logs.length) bad.push(`        ${paint('dim', `its logs: ${logs.join(' ')}`)}`);
    }
    if (r.interrupted) bad.push(`  ${paint('red', 'ERROR')} the run was interrupted`);
    for (const s of r.steps) {
      if (s.status !== 'error' && s.status !== 'failed') continue;
      if (r.error?.step === s.name && s.status === 'error') continue; // already said above
      bad.push(`  ${paint('red', s.status.toUpperCase())} step "${s.name}"${s.message ? `: ${s.message}` : ''}`);
    }
    const good: string[] = [];
    // Note: the checks a broken run never reached share one reason, which the error above already says in full
    const unreached = r.verdicts.filter((v) => v.met && v.label === 'skipped' && v.message.startsWith('not reached'));
    const folded = unreached.length > 1 ? new Set(unreached) : new Set<Verdict>();
    for (const v of r.verdicts) if (!folded.has(v)) (v.met ? good : bad).push(...verdictLines(v, paint, !v.met));
    if (folded.size) good.push(notReachedLine(r, unreached, paint));
    if (bad.length) problems.push(paint('bold', `${r.suiteName}:`), ...bad);
    if (good.length) rest.push(paint('bold', `${r.suiteName}:`), ...good);
  }
  const out: string[] = [];
  const loud = knownIssueFindingLines(runs, paint);
  if (loud.length) out.push(...loud, '');
  if (problems.length) out.push(paint('bold', 'Failures and errors'), ...problems, '');
  if (rest.length) out.push(paint('bold', problems.length ? 'Other checks' : 'Checks'), ...rest, '');
  out.push(...runs.map((r) => runLine(r, paint)));
  return `${out.join('\n')}\n`;
}

/**
 * The two findings every known-issue policy shows loudly, first: a known issue that did not reproduce on a build
 * without its fix, and a check failing on a build with the fix of its issue.
 */
function knownIssueFindingLines(runs: readonly RunRecord[], paint: Paint = (_c, s) => s): string[] {
  const all = findingsOf(runs);
  if (!all.length) return [];
  const suite = new Map(runs.map((r) => [r.runId, r.suiteName]));
  return [
    paint('bold', paint('red', 'Known issues: look at these')),
    ...all.map(
      (f) =>
        `  ${paint('red', f.kind === 'fix-regressed' ? 'FIX REGRESSED' : 'NOT REPRODUCED')} ${suite.get(f.runId)} (run ${f.runId}): ${f.message}; build ${f.build}; ${f.url}`,
    ),
  ];
}

/**
 * --quiet: the verdict line of each run, the checks that did not meet their expectation under it (by id, with the
 * public issue each reproduces: a regression of a fix says so there; an issue that did not reproduce is an unmet check
 * only under `expect`, so --quiet leaves that finding to the full summary and the reports), and the
 * step an error stopped the run in; nothing else but the errors writing the reports.
 */
export function renderQuietSummary(s: SessionReport, opts: ConsoleOptions & { errors: readonly string[] }): string {
  const paint = painter(opts.color);
  const out: string[] = [];
  for (const r of s.suites.flatMap((x) => x.attempts.slice(-1))) {
    out.push(runLine(r, paint));
    const unmet = r.verdicts
      .filter((v) => !v.met)
      .map((v) => (v.knownIssue ? `${v.id} (${labelText(v.knownIssue)})` : v.id));
    if (unmet.length) out.push(`  not met: ${unmet.join(', ')}`);
    if (r.error?.step) out.push(`  error in step "${r.error.step}"`);
    if (r.interrupted) out.push('  interrupted');
  }
  for (const e of opts.errors) out.push(`${paint('red', 'error')}: ${e}`);
  return out.length ? `${out.join('\n')}\n` : '';
}

/** The end of a session on the console: the summary, a comparison table, retries, what was written and how to re-run. */
export function renderSessionConsole(
  s: SessionReport,
  opts: ConsoleOptions & {
    written: readonly { kind: string; path: string; text: string }[];
    errors: readonly string[];
  },
): string {
  const paint = painter(opts.color);
  const finals = s.suites.flatMap((x) => x.attempts.slice(-1));
  const out: string[] = [];
  if (s.matrix && s.suites.length === 0)
    out.push(`shard ${s.matrix.shard} has no cells (the matrix has ${s.matrix.cellsInMatrix})\n`);
  else out.push(renderConsoleSummary(finals, opts));
  if (s.comparison)
    out.push(
      `\n${renderComparison(s.comparison.rows, { color: opts.color, beforeName: s.comparison.beforeName, afterName: s.comparison.afterName })}`,
    );
  for (const x of s.suites.filter((y) => y.attempts.length > 1)) {
    out.push(
      `retried after an infrastructure error: ${x.name} (${x.attempts.map((a) => `${a.runId} ${a.outcome}`).join(' -> ')})\n`,
    );
  }
  for (const x of s.suites.filter((y) => y.attempts.length === 0)) out.push(`not run (interrupted): ${x.name}\n`);
  // run --repeat N: the attempts of each scenario judged together (a repeated failure is a verdict, else flaky).
  if (s.repeats.length) out.push(`\n${renderFlakeReports(s.repeats)}`);
  for (const e of opts.errors) out.push(`${paint('red', 'error')}: ${e}\n`);
  const reports = opts.written.filter((f) => f.kind !== 'repro').map((f) => f.path);
  out.push(`\nreports: ${reports.join(' ')}\n`);
  for (const f of opts.written.filter((w) => w.kind === 'repro')) {
    // the command is all that follows the two comment lines (a quoted argument may hold a newline)
    const command = f.text.split('\n').slice(2).join('\n').trim();
    const what = /^# re-runs (.*?) with the same inputs/m.exec(f.text)?.[1] ?? 'this run';
    out.push(`re-run ${what} exactly (also in ${f.path}):\n  ${command}\n`);
  }
  return out.join('');
}
