// A bisect's reports, pure: the JSON document, the JUnit file (a case per tested commit and one for the answer, so CI
// shows a bisect like any other run), the HTML page (the steps on the commit line, each try linking its run's report)
// and the closing lines of the console.
import type { BisectResult, BisectStep, BisectDirection } from '../model/bisect.js';
import { serialize, type XmlElement } from './xml.js';
import { esc } from './html-text.js';
import { HTML_CSS } from './html-style.js';
import { STEP_IDS } from '../model/run.js';
import { msOfSteps } from './step-id.js';

const BISECT_SCHEMA = 'nomad-reboot-harness/bisect@1';

/** Everything a bisect's reports show. */
export interface BisectReport {
  scenario: string;
  check: string;
  source: string;
  good: { ref: string; sha: string };
  bad: { ref: string; sha: string };
  /** the endpoints as bisected, older first */
  old: string;
  new: string;
  steps: readonly BisectStep[];
  result: BisectResult;
  startedAtMs: number;
  durationMs: number;
  /** the tries' report pages, relative to the bisect folder, by run id */
  pages: Record<string, string>;
}

const short = (sha: string) => sha.slice(0, 10);
const secs = (ms: number) => (ms / 1000).toFixed(3);
const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

/** How people read a side: good/bad for a regression, unfixed/fixed for a fix. */
function term(d: BisectStep['decision'], dir: BisectDirection | undefined): string {
  if (d === 'skip') return 'skip';
  if (dir === 'fix') return d === 'new' ? 'fixed' : 'unfixed';
  return d === 'new' ? 'bad' : 'good';
}

/** The exit code of a bisect: 0 found, 1 inconclusive or aborted by skips, 2 no flip, 3 broken, 130 interrupted. */
export function bisectExitCode(r: BisectResult): number {
  switch (r.status) {
    case 'found':
      return 0;
    case 'inconclusive':
    case 'aborted':
      return 1;
    case 'no-flip':
      return 2;
    case 'broken':
      return 3;
    case 'interrupted':
      return 130;
  }
}

/** The steps that make the lab ready: bring-up (a warm lab's revert is part of it) and install. */
const LAB_STEPS = [STEP_IDS.labUp, STEP_IDS.install];

/** The time a step took, split: build, the lab (bring-up or revert, install), the run, besides. */
function stepTimes(s: BisectStep): { build: number; lab: number; run: number; total: number } {
  const lab = s.tries.reduce((n, t) => n + msOfSteps(t.phases ?? [], LAB_STEPS, (p) => p.ms), 0);
  const tries = s.tries.reduce((n, t) => n + t.ms, 0);
  return { build: s.build.ms, lab, run: tries - lab, total: s.build.ms + tries };
}

export function renderBisectJson(r: BisectReport): string {
  const doc = {
    schema: BISECT_SCHEMA,
    scenario: r.scenario,
    check: r.check,
    source: r.source,
    good: r.good,
    bad: r.bad,
    old: r.old,
    new: r.new,
    status: r.result.status,
    direction: r.result.direction ?? null,
    exitCode: bisectExitCode(r.result),
    message: r.result.message,
    confidence: r.result.confidence,
    reproduction: r.result.reproduction ?? null,
    culprit: r.result.culprit ?? null,
    range: r.result.range,
    startedAt: new Date(r.startedAtMs).toISOString(),
    durationMs: r.durationMs,
    steps: r.steps.map((s) => ({
      n: s.n,
      role: s.role,
      commit: s.commit.sha,
      subject: s.commit.subject,
      decision: s.decision,
      term: term(s.decision, r.result.direction),
      probability: s.probability,
      reason: s.reason,
      left: s.left,
      build: s.build,
      tries: s.tries,
      times: stepTimes(s),
    })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** One suite `bisect:<check>@<good>..<bad>`: a case per tested commit (skip as skipped), and the answer's case. */
export function renderBisectJUnit(r: BisectReport): string {
  const dir = r.result.direction;
  const cases: XmlElement[] = r.steps.map((s) => ({
    name: 'testcase',
    attrs: {
      name: `${s.n} ${short(s.commit.sha)} ${s.commit.subject}: ${term(s.decision, dir)}`,
      classname: `bisect.${r.check}`,
      time: secs(stepTimes(s).total),
    },
    children: [
      ...(s.decision === 'skip' ? [{ name: 'skipped', attrs: { message: s.reason } }] : []),
      {
        name: 'system-out',
        text: [
          `${s.role} ${s.commit.sha}: ${term(s.decision, dir)} (${s.reason}), probability ${pct(s.probability)}`,
          ...s.tries.map((t, i) => `try ${i + 1}: ${t.verdict}${t.runId ? ` (run ${t.runId})` : ''}: ${t.message}`),
        ].join('\n'),
      },
    ],
  }));
  const res = r.result;
  const answer: XmlElement = {
    name: 'testcase',
    attrs: { name: `answer: ${res.status}`, classname: `bisect.${r.check}`, time: secs(r.durationMs) },
    children: [...(res.status === 'found' ? [] : [failureOf(res)]), { name: 'system-out', text: res.message }],
  };
  const all = [...cases, answer];
  const failures = res.status === 'inconclusive' || res.status === 'aborted' || res.status === 'no-flip' ? 1 : 0;
  const errors = res.status === 'broken' || res.status === 'interrupted' ? 1 : 0;
  const skipped = r.steps.filter((s) => s.decision === 'skip').length;
  const suite: XmlElement = {
    name: 'testsuite',
    attrs: {
      name: `bisect:${r.check}@${r.good.ref}..${r.bad.ref}`,
      tests: all.length,
      failures,
      errors,
      skipped,
      time: secs(r.durationMs),
      timestamp: new Date(r.startedAtMs).toISOString().replace(/\.\d+Z$/, ''),
    },
    children: [
      {
        name: 'properties',
        children: [
          ['bisect.scenario', r.scenario],
          ['bisect.check', r.check],
          ['bisect.good', `${r.good.ref} ${r.good.sha}`],
          ['bisect.bad', `${r.bad.ref} ${r.bad.sha}`],
          ['bisect.status', res.status],
          ['bisect.confidence', String(res.confidence)],
          ...(res.culprit ? [['bisect.culprit', res.culprit.sha]] : []),
        ].map(([name, value]) => ({ name: 'property', attrs: { name, value } })),
      },
      ...all,
    ],
  };
  const root: XmlElement = {
    name: 'testsuites',
    attrs: { name: 'nomad-reboot-harness', tests: all.length, failures, errors, time: secs(r.durationMs) },
    children: [suite],
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${serialize(root)}\n`;
}

function failureOf(res: BisectResult): XmlElement {
  const kind = res.status === 'broken' || res.status === 'interrupted' ? 'error' : 'failure';
  return { name: kind, attrs: { message: res.message, type: res.status }, text: res.range.join('\n') };
}

/** The closing lines: the culprit with its PR, date, confidence and flags, or why there is none. */
export function renderBisectSummary(r: BisectReport): string[] {
  const res = r.result;
  const lines: string[] = [];
  const c = res.culprit;
  if (c) {
    const what = res.direction === 'fix' ? 'first fixed commit' : 'first bad commit';
    lines.push(`${res.status === 'found' ? '' : 'most likely '}${what}: ${c.sha}`);
    lines.push(`  ${c.subject}`);
    const refs = [c.pr ? `PR ${c.pr}` : '', ...c.changelog].filter(Boolean).join(', ');
    lines.push(`  ${[refs, `authored ${c.authorDate}`].filter(Boolean).join('; ')}`);
    const flags = [
      c.flags.sameBinaryAsParent === true
        ? "its binary equals its parent's but for the commit id: the flip came from elsewhere (a flaky check, the lab)"
        : '',
      c.flags.merge ? 'it is a merge: the change is in one of the branches it joins' : '',
      c.flags.docsOrTestsOnly ? 'it changes only documentation or tests' : '',
    ].filter(Boolean);
    for (const f of flags) lines.push(`  flag: ${f}`);
  }
  const rep = res.reproduction;
  const repro = rep ? `; the failing endpoint reproduced ${rep.fails} of ${rep.tries}, a pass needed ${rep.k}` : '';
  lines.push(
    `${res.status.toUpperCase()} bisect of ${r.check} (${r.scenario}) ${r.good.ref}..${r.bad.ref}: ${r.steps.length} commits tested, confidence ${r.steps.length ? pct(res.confidence) : 'n/a'}${repro} (${Math.round(r.durationMs / 1000)} s)`,
  );
  if (res.status !== 'found') lines.push(res.message);
  return lines;
}

/** The page: the answer, then every tested commit in history order with its decision and its tries' reports. */
export function renderBisectHtml(r: BisectReport): string {
  const res = r.result;
  const dir = res.direction;
  const ordered = [...r.steps].sort((a, b) => a.commit.authorDate.localeCompare(b.commit.authorDate));
  const color = (d: BisectStep['decision']) =>
    d === 'skip' ? '#999' : (d === 'new') === (dir === 'fix') ? '#2a7' : '#c33';
  const rows = ordered
    .map((s) => {
      const t = stepTimes(s);
      const tries = s.tries
        .map((x, i) => {
          const page = x.runId ? r.pages[x.runId] : undefined;
          const label = `${i + 1}: ${esc(x.verdict)}`;
          return page ? `<a href="${esc(page)}">${label}</a>` : label;
        })
        .join(' · ');
      return `<tr><td><span class="dot" style="background:${color(s.decision)}"></span> ${s.n}</td><td><code>${esc(short(s.commit.sha))}</code></td><td>${esc(s.commit.subject)}</td><td>${esc(s.role)}</td><td><b>${esc(term(s.decision, dir))}</b><br><small>${esc(s.reason)}</small></td><td>${tries}</td><td>${(t.build / 1000).toFixed(0)} s / ${(t.lab / 1000).toFixed(0)} s / ${(t.run / 1000).toFixed(0)} s</td><td>${s.left}</td></tr>`;
    })
    .join('\n');
  const c = res.culprit;
  const head = c
    ? `<p class="answer"><b>${esc(res.status === 'found' ? '' : 'most likely ')}${dir === 'fix' ? 'first fixed commit' : 'first bad commit'}:</b> <code>${esc(c.sha)}</code> ${esc(c.subject)}${c.pr ? ` (${esc(c.pr)})` : ''}${c.changelog.map((g) => ` <a href="https://github.com/hashicorp/nomad/issues/${esc(g.slice(3))}">${esc(g)}</a>`).join('')}</p>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bisect ${esc(r.check)} ${esc(r.good.ref)}..${esc(r.bad.ref)}</title>
<style>${HTML_CSS}
.dot{display:inline-block;width:.8em;height:.8em;border-radius:50%}
table.bisect td{vertical-align:top;padding:.2em .5em}
</style></head><body>
<h1>bisect: ${esc(r.check)} on ${esc(r.scenario)}, ${esc(r.good.ref)}..${esc(r.bad.ref)}</h1>
<p>${esc(res.status)}: ${esc(res.message)}</p>
${head}
<p>confidence ${r.steps.length ? pct(res.confidence) : 'n/a'}${res.reproduction ? `; the failing endpoint reproduced ${res.reproduction.fails} of ${res.reproduction.tries}; a pass needed ${res.reproduction.k}` : ''}; ${r.steps.length} commits tested in ${Math.round(r.durationMs / 1000)} s</p>
<table class="bisect"><thead><tr><th>#</th><th>commit</th><th>subject</th><th>why</th><th>decision</th><th>tries (reports)</th><th>build / lab / run</th><th>left</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}
