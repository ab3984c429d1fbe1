// JUnit XML for scenario runs: one <testsuite> per run, one <testcase> per step and per check. Pure.
// Validates against Jenkins xUnit's junit-10.xsd (see test/unit/report-junit.test.ts). Modelled on Playwright's reporter.
import type { Verdict } from '../model/check.js';
import type { ArtifactRef, RunRecord, StepRecord } from '../model/run.js';
import { serialize, type XmlElement } from './xml.js';

/** Longest failure/error message attribute; the full text is in the element body. */
const MAX_MESSAGE = 500;

function line(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > MAX_MESSAGE ? `${one.slice(0, MAX_MESSAGE - 1)}…` : one;
}

const seconds = (ms: number): string => (Number.isFinite(ms) && ms > 0 ? ms / 1000 : 0).toFixed(3);

/** Test case name of a check: the human title, then the stable id. */
export function verdictCaseName(v: Verdict): string {
  return `${v.title} (${v.id})`;
}

interface Case {
  el: XmlElement;
  kind: 'ok' | 'failure' | 'error' | 'skipped';
  /** names an artifact's caseName may use for this case */
  keys: string[];
}

function testcase(name: string, classname: string, ms: number, result: XmlElement | undefined, out: string[]): XmlElement {
  const children: XmlElement[] = [];
  if (result) children.push(result);
  if (out.length) children.push({ name: 'system-out', text: out.join('\n') });
  return { name: 'testcase', attrs: { name, classname, time: seconds(ms) }, children };
}

function stepCase(s: StepRecord, scenario: string): Case {
  const out = [s.message, s.detail].filter((x): x is string => !!x);
  const msg = line(s.message ?? `step ${s.status}`);
  const body = s.detail ?? s.message ?? '';
  const result: Record<StepRecord['status'], XmlElement | undefined> = {
    passed: undefined,
    failed: { name: 'failure', attrs: { message: msg, type: 'step-failed' }, text: body },
    error: { name: 'error', attrs: { message: msg, type: 'infrastructure' }, text: body },
    skipped: { name: 'skipped', attrs: { message: msg } },
  };
  const kind = s.status === 'passed' ? 'ok' : s.status === 'failed' ? 'failure' : s.status;
  return { el: testcase(s.name, `${scenario}.steps`, s.durationMs, result[s.status], s.status === 'passed' ? out : []), kind, keys: [s.name] };
}

function verdictCase(v: Verdict, scenario: string): Case {
  const name = verdictCaseName(v);
  const classname = `${scenario}.checks`;
  if (!v.met) {
    const prefix = v.label === 'unexpected pass' ? 'unexpected pass: ' : v.label === 'skipped' ? 'expected to fail but was skipped: ' : '';
    const failure: XmlElement = { name: 'failure', attrs: { message: line(prefix + v.message), type: v.label }, text: [v.message, '', ...v.evidence].join('\n') };
    return { el: testcase(name, classname, 0, failure, []), kind: 'failure', keys: [name, v.id] };
  }
  if (v.label === 'skipped') {
    return { el: testcase(name, classname, 0, { name: 'skipped', attrs: { message: line(v.message) } }, v.evidence), kind: 'skipped', keys: [name, v.id] };
  }
  const head = v.label === 'expected failure' ? `expected failure: ${v.message}` : v.message;
  return { el: testcase(name, classname, 0, undefined, [head, ...v.evidence]), kind: 'ok', keys: [name, v.id] };
}

/** Cases for an infrastructure error (or interruption) that no step with status `error` already reports. */
function runErrorCases(run: RunRecord): Case[] {
  const erroredSteps = new Set(run.steps.filter((s) => s.status === 'error').map((s) => s.name));
  const cases: Case[] = [];
  if (run.error && !(run.error.step && erroredSteps.has(run.error.step))) {
    const name = run.error.step ? `run error in ${run.error.step}` : 'run error';
    const err: XmlElement = { name: 'error', attrs: { message: line(run.error.message), type: 'infrastructure' }, text: run.error.detail ?? run.error.message };
    cases.push({ el: testcase(name, `${run.scenario}.run`, 0, err, []), kind: 'error', keys: [name, 'run error'] });
  }
  if (run.interrupted && !run.error && erroredSteps.size === 0) {
    const err: XmlElement = { name: 'error', attrs: { message: 'the run was interrupted before it finished', type: 'interrupted' }, text: 'interrupted' };
    cases.push({ el: testcase('interrupted', `${run.scenario}.run`, 0, err, []), kind: 'error', keys: ['interrupted'] });
  }
  return cases;
}

function attach(cases: Case[], artifacts: ArtifactRef[]): string[] {
  const suiteLevel: string[] = [];
  for (const a of artifacts) {
    const target = a.caseName === undefined ? undefined : cases.find((c) => c.keys.includes(a.caseName!));
    const ref = `[[ATTACHMENT|${a.path}]]`;
    if (!target) {
      suiteLevel.push(ref);
      continue;
    }
    const kids = (target.el.children ??= []);
    const out = kids.find((k) => k.name === 'system-out');
    if (out) out.text = `${out.text}\n${ref}`;
    else kids.push({ name: 'system-out', text: ref });
  }
  return suiteLevel;
}

function suite(run: RunRecord): { el: XmlElement; tests: number; failures: number; errors: number } {
  const cases = [...runErrorCases(run), ...run.steps.map((s) => stepCase(s, run.scenario)), ...run.verdicts.map((v) => verdictCase(v, run.scenario))];
  const suiteOut = attach(cases, run.artifacts);
  const own: Record<string, string> = { runId: run.runId, scenario: run.scenario, outcome: run.outcome, ...(run.interrupted ? { interrupted: 'true' } : {}) };
  const props = { ...own, ...Object.fromEntries(Object.entries(run.properties).filter(([k]) => !(k in own))) };
  const count = (k: Case['kind']): number => cases.filter((c) => c.kind === k).length;
  const children: XmlElement[] = [
    { name: 'properties', children: Object.entries(props).map(([name, value]) => ({ name: 'property', attrs: { name, value } })) },
    ...cases.map((c) => c.el),
  ];
  if (suiteOut.length) children.push({ name: 'system-out', text: suiteOut.join('\n') });
  const tests = cases.length;
  const failures = count('failure');
  const errors = count('error');
  const attrs = {
    name: run.suiteName,
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

/** Render runs as one JUnit document (testsuites > testsuite per run), valid even for a run that died before any check. */
export function renderJUnit(runs: readonly RunRecord[]): string {
  const suites = runs.map(suite);
  const sum = (k: 'tests' | 'failures' | 'errors'): number => suites.reduce((n, s) => n + s[k], 0);
  const root: XmlElement = {
    name: 'testsuites',
    attrs: { name: 'nomad-reboot-harness', tests: sum('tests'), failures: sum('failures'), errors: sum('errors'), time: seconds(runs.reduce((n, r) => n + (r.durationMs || 0), 0)) },
    children: suites.map((s) => s.el),
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${serialize(root)}\n`;
}
