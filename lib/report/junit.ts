// JUnit XML for a session: one <testsuite> per suite (its final attempt), one <testcase> per step and per check, and
// a retried suite's first attempt as a Surefire rerun element inside the case where it broke. Pure.
// Validates against Jenkins xUnit's junit-10.xsd (see test/unit/report-junit.test.ts). Modelled on Playwright's reporter.
import { checkCaseName } from './case-name.js';
import type { Verdict } from '../model/check.js';
import { stepValuesText, type ArtifactRef, type RunRecord, type StepRecord } from '../model/run.js';
import type { FlakeVerdict, SuiteReport } from '../model/session.js';
import { serialize, type XmlElement } from './xml.js';
import { labelText } from '../known-issues/label.js';

interface JUnitOptions {
  /** how an artifact is named in `[[ATTACHMENT|...]]`: relative to the JUnit file's folder (GitLab), or absolute */
  attachmentPath: (a: ArtifactRef) => string;
  /** the run's HTML page as an attachment path (every failed case's first attachment unless a check has better) */
  pagePath?: (run: RunRecord) => string | undefined;
}

/**
 * The artifact that tells most about a check's failure, by name, best first. GitLab shows only the first
 * `[[ATTACHMENT|…]]` of a case, so it goes first; the run's page comes next, then the rest (Jenkins shows them all).
 */
const TELLING: Record<string, readonly string[]> = {
  'alloc-restored': ['task-events.json', 'alloc-after.json'],
  'no-duplicate-ip': ['client-nomad-journal.log', 'client-journal-nomad-current-boot.txt'],
  'unique-ips-after-upgrade': ['client-nomad-journal.log', 'cni-state-after.txt'],
  'client-rebooted': ['client-boots.txt'],
  'host-rebooted': ['client-boots.txt'],
  'no-leaks': ['client-iptables-save.txt', 'client-netns.txt', 'client-cni-state.txt'],
  'task-dirs': ['whole-alloc.json'],
  'task-netns': ['whole-alloc.json'],
  'task-env': ['whole-alloc.json'],
  'alloc-exec': ['whole-alloc.json'],
  services: ['whole-alloc.json'],
  'agent-resources': ['whole-alloc.json'],
};

/** Longest failure/error message attribute; the full text is in the element body. */
const MAX_MESSAGE = 500;

function line(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > MAX_MESSAGE ? `${one.slice(0, MAX_MESSAGE - 1)}…` : one;
}

const seconds = (ms: number): string => (Number.isFinite(ms) && ms > 0 ? ms / 1000 : 0).toFixed(3);

interface Case {
  el: XmlElement;
  kind: 'ok' | 'failure' | 'error' | 'skipped';
  /** names an artifact's caseName may use for this case */
  keys: string[];
  /** the step name, for a step case (a rerun element goes into the case of the step that broke) */
  step?: string;
  /** the check's id, for a check case (its most telling artifact goes first) */
  check?: string;
}

function testcase(
  name: string,
  classname: string,
  ms: number,
  result: XmlElement | undefined,
  out: string[],
): XmlElement {
  const children: XmlElement[] = [];
  if (result) children.push(result);
  if (out.length) children.push({ name: 'system-out', text: out.join('\n') });
  return { name: 'testcase', attrs: { name, classname, time: seconds(ms) }, children };
}

/**
 * A step's case. Its name is the step's fixed name; the values this run gave it (a count, a job's name) are in the
 * case's output and the failure's text, so another count or job never splits the case's history in CI.
 */
function stepCase(s: StepRecord, scenario: string, interrupted: boolean): Case {
  const values = Object.entries(s.values ?? {}).map(([k, v]) => `${k}: ${v}`);
  const out = [...values, s.message, s.detail].filter((x): x is string => !!x);
  const v = stepValuesText(s.values);
  const msg = line(`${s.message ?? `step ${s.status}`}${v ? ` [${v}]` : ''}`);
  const body = [...values, s.detail ?? s.message ?? ''].join('\n');
  const result: Record<StepRecord['status'], XmlElement | undefined> = {
    passed: undefined,
    failed: { name: 'failure', attrs: { message: msg, type: 'step-failed' }, text: body },
    error: { name: 'error', attrs: { message: msg, type: interrupted ? 'interrupted' : 'infrastructure' }, text: body },
    skipped: { name: 'skipped', attrs: { message: msg } },
  };
  const kind = s.status === 'passed' ? 'ok' : s.status === 'failed' ? 'failure' : s.status;
  return {
    el: testcase(s.name, `${scenario}.steps`, s.durationMs, result[s.status], s.status === 'passed' ? out : []),
    kind,
    keys: [s.name],
    step: s.name,
  };
}

function verdictCase(v: Verdict, scenario: string): Case {
  const name = checkCaseName(v);
  const classname = `${scenario}.checks`;
  if (!v.met) {
    const prefix =
      v.label === 'unexpected pass'
        ? 'unexpected pass: '
        : v.label === 'skipped'
          ? 'expected to fail but was skipped: '
          : '';
    // the public issue it reproduces (or "new") ends the message: CI lists show only the message
    const known = v.knownIssue ? ` [${labelText(v.knownIssue)}]` : '';
    const link = v.knownIssue?.url ? [`${labelText(v.knownIssue)}: ${v.knownIssue.url}`, ''] : [];
    const failure: XmlElement = {
      name: 'failure',
      attrs: { message: line(prefix + v.message + known), type: v.label },
      text: [v.message, '', ...link, ...v.evidence].join('\n'),
    };
    return { el: testcase(name, classname, 0, failure, []), kind: 'failure', keys: [name, v.id], check: v.id };
  }
  if (v.label === 'skipped') {
    return {
      el: testcase(name, classname, 0, { name: 'skipped', attrs: { message: line(v.message) } }, v.evidence),
      kind: 'skipped',
      keys: [name, v.id],
    };
  }
  const head = v.label === 'expected failure' ? `expected failure: ${v.message}` : v.message;
  return { el: testcase(name, classname, 0, undefined, [head, ...v.evidence]), kind: 'ok', keys: [name, v.id] };
}

/** Cases for an infrastructure error (or interruption) that no step with status `error` already reports. */
function runErrorCases(run: RunRecord): Case[] {
  const erroredSteps = new Set(run.steps.filter((s) => s.status === 'error').map((s) => s.name));
  const cases: Case[] = [];
  const type = run.interrupted ? 'interrupted' : 'infrastructure';
  if (run.error && !(run.error.step && erroredSteps.has(run.error.step))) {
    const name = run.interrupted ? 'interrupted' : run.error.step ? `run error in ${run.error.step}` : 'run error';
    const message = run.interrupted
      ? `interrupted${run.error.step ? ` in step "${run.error.step}"` : ''}: ${run.error.message}`
      : run.error.message;
    const err: XmlElement = {
      name: 'error',
      attrs: { message: line(message), type },
      text: run.error.detail ?? run.error.message,
    };
    cases.push({ el: testcase(name, `${run.scenario}.run`, 0, err, []), kind: 'error', keys: [name, 'run error'] });
  }
  if (run.interrupted && !run.error && erroredSteps.size === 0) {
    const err: XmlElement = {
      name: 'error',
      attrs: { message: 'the run was interrupted before it finished', type: 'interrupted' },
      text: 'interrupted',
    };
    cases.push({
      el: testcase('interrupted', `${run.scenario}.run`, 0, err, []),
      kind: 'error',
      keys: ['interrupted'],
    });
  }
  return cases;
}

/**
 * Attachments: an artifact meant for one case goes on that case; the run's own evidence goes on every failed or
 * errored case (GitLab shows attachments only there) and in the suite's system-out (Jenkins reads it there).
 */
function attach(cases: Case[], run: RunRecord, opts: JUnitOptions): string[] {
  const add = (c: Case, ref: string) => {
    c.el.children ??= [];
    const kids = c.el.children;
    const out = kids.find((k) => k.name === 'system-out');
    if (out) out.text = `${out.text}\n${ref}`;
    else kids.push({ name: 'system-out', text: ref });
  };
  const ref = (path: string) => `[[ATTACHMENT|${path}]]`;
  const runWide: ArtifactRef[] = [];
  for (const a of run.artifacts) {
    const target = a.caseName === undefined ? undefined : cases.find((c) => c.keys.includes(a.caseName!));
    if (target) add(target, ref(opts.attachmentPath(a)));
    else runWide.push(a);
  }
  const page = opts.pagePath?.(run);
  for (const c of cases) {
    if (c.kind !== 'failure' && c.kind !== 'error') continue;
    const telling = TELLING[c.check ?? ''] ?? [];
    const rank = (a: ArtifactRef) => {
      const i = telling.indexOf(a.name);
      return i < 0 ? telling.length : i;
    };
    const first = runWide.filter((a) => rank(a) < telling.length).sort((a, b) => rank(a) - rank(b));
    const rest = runWide.filter((a) => rank(a) === telling.length);
    for (const a of first) add(c, ref(opts.attachmentPath(a)));
    if (page !== undefined) add(c, ref(page));
    for (const a of rest) add(c, ref(opts.attachmentPath(a)));
  }
  return [...(page !== undefined ? [ref(page)] : []), ...runWide.map((a) => ref(opts.attachmentPath(a)))];
}

/** The test cases of a run: its error (if it broke outside a step), a case per step, a case per check. */
function casesOf(run: RunRecord): Case[] {
  const interrupted = run.interrupted === true;
  return [
    ...runErrorCases(run),
    ...run.steps.map((s) => stepCase(s, run.scenario, interrupted)),
    ...run.verdicts.map((v) => verdictCase(v, run.scenario)),
  ];
}

/** A run's JUnit counts, as its suite declares them (the merge index shows the same numbers). */
export function suiteCounts(run: RunRecord): { tests: number; failures: number; errors: number; skipped: number } {
  const cases = casesOf(run);
  const count = (k: Case['kind']): number => cases.filter((c) => c.kind === k).length;
  return { tests: cases.length, failures: count('failure'), errors: count('error'), skipped: count('skipped') };
}

/** What a JUnit suite is made of: a suite of the session, and its flake verdict when it is one attempt of a repeat. */
type JUnitSuite = Pick<SuiteReport, 'name' | 'attempts'> & { flake?: FlakeVerdict | undefined };

function suite(
  report: JUnitSuite,
  opts: JUnitOptions,
): { el: XmlElement; tests: number; failures: number; errors: number } {
  const run = report.attempts[report.attempts.length - 1]!;
  const cases = casesOf(run);
  const first = report.attempts[0]!;
  if (first !== run) {
    const target = cases.find((c) => c.step !== undefined && c.step === first.error?.step) ?? cases[0];
    if (target) {
      target.el.children ??= [];
      target.el.children.unshift(rerunElement(first, run));
    }
  }
  const suiteOut = attach(cases, run, opts);
  const own: Record<string, string> = {
    runId: run.runId,
    scenario: run.scenario,
    outcome: run.outcome,
    ...(run.interrupted ? { interrupted: 'true' } : {}),
    ...(report.flake
      ? {
          'repeat.verdict': report.flake.verdict,
          'repeat.flake_rate': report.flake.flakeRate.toFixed(2),
          'repeat.message': report.flake.message,
        }
      : {}),
  };
  const props = {
    ...own,
    ...knownIssueProperties(run),
    ...Object.fromEntries(Object.entries(run.properties).filter(([k]) => !(k in own))),
  };
  const count = (k: Case['kind']): number => cases.filter((c) => c.kind === k).length;
  // one `known_issue` property per issue that reproduced (a name CI can filter on), before the others
  const issues = [
    ...new Set(run.verdicts.flatMap((v) => (v.knownIssue?.kind === 'known' ? [v.knownIssue.issue!] : []))),
  ];
  const children: XmlElement[] = [
    {
      name: 'properties',
      children: [
        ...issues.map((value) => ({ name: 'property', attrs: { name: 'known_issue', value } })),
        ...Object.entries(props).map(([name, value]) => ({ name: 'property', attrs: { name, value } })),
      ],
    },
    ...cases.map((c) => c.el),
  ];
  if (suiteOut.length) children.push({ name: 'system-out', text: suiteOut.join('\n') });
  const tests = cases.length;
  const failures = count('failure');
  const errors = count('error');
  const attrs = {
    name: report.name,
    tests,
    failures,
    errors,
    skipped: count('skipped'),
    time: seconds(run.durationMs),
    timestamp: Number.isFinite(run.startedAtMs) ? new Date(run.startedAtMs).toISOString() : undefined,
    hostname: run.hostname,
    id: run.runId,
  };
  return { el: { name: 'testsuite', attrs, children }, tests, failures, errors };
}

/**
 * The known-issue table's word on a run, as suite properties: `known_issue.<check>` (its label and the issue's link)
 * per labelled check, `known_issue.policy`, and `known_issue.finding.<n>` per loud finding.
 */
function knownIssueProperties(run: RunRecord): Record<string, string> {
  const out: Record<string, string> = {};
  if (run.knownIssues) out['known_issue.policy'] = run.knownIssues.policy;
  for (const v of run.verdicts)
    if (v.knownIssue)
      out[`known_issue.${v.id}`] = `${labelText(v.knownIssue)}${v.knownIssue.url ? ` ${v.knownIssue.url}` : ''}`;
  for (const [i, f] of (run.knownIssues?.findings ?? []).entries())
    out[`known_issue.finding.${i + 1}`] = `${f.kind}: ${f.message} ${f.url}`;
  return out;
}

/**
 * Surefire's elements, as junit-10.xsd accepts them inside <testcase>: `flakyError` when the retry reached a verdict
 * (the first error was the lab's, not Nomad's), `rerunError` when the retry broke too.
 */
function rerunElement(first: RunRecord, final: RunRecord): XmlElement {
  const name = final.outcome === 'error' ? 'rerunError' : 'flakyError';
  const where = first.error?.step ? ` in "${first.error.step}"` : '';
  const msg = `attempt 1 (run ${first.runId}) ended in an infrastructure error${where}: ${first.error?.message ?? first.outcome}; retried as run ${final.runId}`;
  const steps = first.steps.map((s) => `${s.status.padEnd(7)} ${s.name}${s.message ? `: ${s.message}` : ''}`);
  return {
    name,
    attrs: { message: line(msg), type: 'infrastructure' },
    children: [
      { name: 'stackTrace', text: first.error?.detail ?? first.error?.message ?? '' },
      { name: 'system-out', text: [`run ${first.runId} (attempt 1)`, ...steps].join('\n') },
    ],
  };
}

/** Render the suites that ran (at least one attempt) as one JUnit document, valid even for a run that died early. */
export function renderJUnit(suites: readonly JUnitSuite[], opts: JUnitOptions): string {
  const ran = suites.filter((s) => s.attempts.length > 0);
  const rendered = ran.map((s) => suite(s, opts));
  const sum = (k: 'tests' | 'failures' | 'errors'): number => rendered.reduce((n, s) => n + s[k], 0);
  // Note: the root's time is the sum of its suites' times (each the final attempt's), as a merge recounts it.
  const ms = ran.reduce((n, s) => n + (s.attempts.at(-1)!.durationMs || 0), 0);
  const root: XmlElement = {
    name: 'testsuites',
    attrs: {
      name: 'nomad-reboot-harness',
      tests: sum('tests'),
      failures: sum('failures'),
      errors: sum('errors'),
      time: seconds(ms),
    },
    children: rendered.map((s) => s.el),
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${serialize(root)}\n`;
}
