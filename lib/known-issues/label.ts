// Pure: a judged run labelled with the public issues its failed checks reproduce, and the two findings every policy
// reports loudly. It runs after judging and never changes what was observed: a check's status, message and evidence
// stay; only under `expect` a known failure's expectation becomes `fail` (an expected failure, as `--expect` makes).
import type { Verdict } from '../model/check.js';
import type {
  FixState,
  KnownIssue,
  KnownIssueFinding,
  KnownIssueLabel,
  KnownIssuePolicy,
  RunKnownIssues,
} from '../model/known-issue.js';
import type { RebootKind, TaskDriver } from '../model/kinds.js';
import type { RunRecord } from '../model/run.js';
import { compareVersions, parseVersion } from '../parse/versions.js';

/** The id of the verdict `expect` adds when an issue that must reproduce did not (exit 1, like any unmet verdict). */
export const KNOWN_ISSUE_NOT_REPRODUCED = 'known-issue-not-reproduced';

/** Per fix commit: is it an ancestor of the build's commit (undefined: git could not tell, e.g. an unknown object). */
export type Ancestry = Readonly<Record<string, boolean | undefined>>;

/** The build a run's checks judged (after an in-place upgrade: the one upgraded to), as the labeller needs it. */
export interface BuildUnderTest {
  /** one line for findings: "git:/src/nomad@v2.0.4 (2.0.4, git /src/nomad 1a2b…)" */
  describe: string;
  /** `nomad version`'s version (1.11.3, 1.11.9+ent, 2.1.0-dev); "" when it printed none */
  version: string;
  origin: 'release' | 'git' | 'path';
  /** a source build: the answers of git ancestry for the table's fix commits in the build's tree */
  ancestry?: Ancestry;
}

/** What the run was: the conditions the table's rows name. */
export interface RunFacts {
  scenario: string;
  kind: RebootKind;
  driver: TaskDriver;
}

interface LabelOptions {
  table: readonly KnownIssue[];
  policy: KnownIssuePolicy;
  /** undefined when the run installed no build (nothing to tell a fix from) */
  build: BuildUnderTest | undefined;
  facts: RunFacts;
  /** the checks the user expects to pass by name (`--expect <check>=pass`): a known issue does not turn them met */
  mustPass?: readonly string[];
}

/** Whether a row's conditions hold for a run. */
function conditionsHold(row: KnownIssue, f: RunFacts): boolean {
  const c = row.conditions;
  return (
    (!c.kinds || c.kinds.includes(f.kind)) &&
    (!c.drivers || c.drivers.includes(f.driver)) &&
    (!c.scenarios || c.scenarios.includes(f.scenario))
  );
}

/** A row's signature as a list (empty: the row has none). */
export function signaturesOf(row: Pick<KnownIssue, 'signature'>): readonly string[] {
  const s = row.signature;
  return s === undefined ? [] : typeof s === 'string' ? [s] : s;
}

/**
 * Whether a failed check is the row's: it is one of the row's checks and, when the row has a signature, every pattern
 * of it matches the check's message or one of its evidence lines (a pattern that does not compile matches nothing:
 * the row then explains no failure, which is the safe side; validation refuses such rows).
 */
export function rowExplains(row: KnownIssue, v: Pick<Verdict, 'id' | 'message' | 'evidence'>): boolean {
  if (!row.checks.includes(v.id)) return false;
  const texts = [v.message, ...v.evidence];
  return signaturesOf(row).every((p) => {
    const re = compiled(p);
    return re !== undefined && texts.some((t) => re.test(t));
  });
}

const patterns = new Map<string, RegExp | undefined>();
function compiled(p: string): RegExp | undefined {
  if (!patterns.has(p)) {
    try {
      patterns.set(p, new RegExp(p));
    } catch {
      patterns.set(p, undefined);
    }
  }
  return patterns.get(p);
}

/** The releases with the fix, for labels: "2.0.5", "1.10.6, 1.11.0" (public releases only; Enterprise in the docs). */
export function fixedInText(row: KnownIssue): string {
  const all = Object.entries(row.lines)
    .filter(([line, l]) => !line.includes('+') && l.fixedIn)
    .map(([, l]) => l.fixedIn!);
  if (row.sinceRelease) all.push(row.sinceRelease);
  const uniq = [...new Set(all)].sort(compareVersions);
  return uniq.length ? uniq.join(', ') : 'no release yet';
}

/**
 * Does the build have the row's fix? A source build: git ancestry of any of its fix commits (exact for branches,
 * backports and main); a release or a path: its `nomad version` against the first release of its line with the fix.
 */
export function fixState(row: KnownIssue, build: BuildUnderTest): FixState {
  if (build.origin === 'git' && build.ancestry) {
    const answers = row.fixes.map((f) => ({ f, a: build.ancestry![f.commit] }));
    const yes = answers.find((x) => x.a === true);
    if (yes) return { has: 'yes', by: 'ancestry', detail: `the tree has ${yes.f.branch} ${yes.f.commit.slice(0, 10)}` };
    if (answers.every((x) => x.a === false))
      return {
        has: 'no',
        by: 'ancestry',
        detail: `the tree has none of ${answers.map((x) => x.f.commit.slice(0, 10)).join(', ')}`,
      };
    // Note: a fix commit git does not know (a shallow or foreign tree) leaves only the version to go by
  }
  return versionState(row, build.version);
}

function versionState(row: KnownIssue, version: string): FixState {
  const p = parseVersion(version);
  if (!p) return { has: 'unknown', detail: `version ${JSON.stringify(version)} is not one the table can place` };
  const line = `${p.nums[0]}.${p.nums[1]}`;
  const edition = p.edition ? `+${p.edition}` : '';
  const ent = edition ? row.lines[`${line}+ent`] : undefined;
  const oss = row.lines[line];
  // Note: an Enterprise build has the public line's fixes, and its own backports besides
  const entry = ent ?? (edition && oss && !oss.fixedIn ? undefined : oss);
  const v = version.replace(/\+.*$/, '');
  if (entry) {
    if (entry.fixedIn === null)
      return { has: 'no', by: 'version', detail: `${version}: no release of ${line} has the fix` };
    return compareVersions(v, entry.fixedIn) >= 0
      ? { has: 'yes', by: 'version', detail: `${version} >= ${entry.fixedIn}` }
      : { has: 'no', by: 'version', detail: `${version} < ${entry.fixedIn}` };
  }
  if (row.sinceRelease && compareVersions(v, row.sinceRelease) >= 0 && !/-/.test(v))
    return { has: 'yes', by: 'version', detail: `${version} >= ${row.sinceRelease} (cut from main after the fix)` };
  return { has: 'unknown', detail: `the table has no entry for ${line}${edition} in ${row.id}` };
}

/** The label of one failed check: the first matching row the build lacks the fix of, else a regression or unknown. */
function labelOf(v: Verdict, rows: readonly KnownIssue[], states: Record<string, FixState>): KnownIssueLabel {
  const mine = rows.filter((r) => rowExplains(r, v));
  const base = (r: KnownIssue) => ({ issue: r.id, url: r.url, fixedIn: fixedInText(r) });
  const lacking = mine.find((r) => states[r.id]?.has === 'no');
  if (lacking) return { kind: 'known', ...base(lacking), detail: states[lacking.id]!.detail };
  const unknown = mine.find((r) => states[r.id]?.has === 'unknown');
  if (unknown) return { kind: 'unknown', ...base(unknown), detail: states[unknown.id]!.detail };
  const fixed = mine.find((r) => states[r.id]?.has === 'yes');
  if (fixed) return { kind: 'regression', ...base(fixed), detail: states[fixed.id]!.detail };
  return { kind: 'new' };
}

/**
 * Label a judged run: each failed check gets its label (a consequence, `causedBy`, the label of its cause), the
 * findings are listed, and under `expect` a known failure becomes an expected failure and an issue that must
 * reproduce but did not becomes an unmet verdict. `outcomeOf` recomputes the outcome from the verdicts it returns.
 */
export function labelVerdicts(
  verdicts: readonly Verdict[],
  o: LabelOptions,
): { verdicts: Verdict[]; knownIssues: RunKnownIssues } {
  const rows = o.table.filter((r) => conditionsHold(r, o.facts));
  const ids = new Set(verdicts.map((v) => v.id));
  const states: Record<string, FixState> = {};
  for (const r of rows)
    if (r.checks.some((c) => ids.has(c)))
      states[r.id] = o.build ? fixState(r, o.build) : { has: 'unknown', detail: 'the run installed no build' };
  const labels = new Map<string, KnownIssueLabel>();
  for (const v of verdicts) if (v.status === 'failed') labels.set(v.id, labelOf(v, rows, states));
  // a consequence follows its cause's label (task-restarted <- alloc-restored <- no-duplicate-ip), whatever the order
  for (let changed = true; changed; ) {
    changed = false;
    for (const v of verdicts) {
      const own = labels.get(v.id);
      const cause = v.causedBy ? labels.get(v.causedBy) : undefined;
      if (own?.kind === 'new' && cause && cause.kind !== 'new') {
        labels.set(v.id, { ...cause, via: v.causedBy! });
        changed = true;
      }
    }
  }
  const findings: KnownIssueFinding[] = [];
  const build = o.build?.describe ?? '(no build)';
  for (const r of rows) {
    const s = states[r.id];
    if (!s) continue;
    const judged = verdicts.filter((v) => r.checks.includes(v.id));
    // a failure the row's signature does not match is not the row's (another crash on the same check)
    const failed = judged.filter((v) => v.status === 'failed' && rowExplains(r, v));
    // Note: a failure another row labels known (the same crash, fixed later for another path) is that row's, not a
    // regression of this row's fix
    const regressed = failed.filter((v) => {
      const l = labels.get(v.id);
      return !(l?.kind === 'known' && l.issue !== r.id);
    });
    if (s.has === 'yes' && regressed.length)
      findings.push({
        kind: 'fix-regressed',
        issue: r.id,
        url: r.url,
        checks: regressed.map((v) => v.id),
        build,
        message:
          `${regressed.map((v) => v.id).join(', ')} failed on a build that has the fix of ${r.id} (${s.detail}): ` +
          'a regression of the fix, or a new bug with the same symptom',
      });
    // a check that ran and showed something else (passed, or failed without the signature) did not reproduce it
    const ran = judged.filter((v) => v.status === 'passed' || (v.status === 'failed' && !rowExplains(r, v)));
    if (s.has === 'no' && r.reproduces === 'always' && ran.length && !failed.length)
      findings.push({
        kind: 'not-reproduced',
        issue: r.id,
        url: r.url,
        checks: ran.map((v) => v.id),
        build,
        message:
          `${r.id} did not reproduce on a build without its fix (${s.detail}): ${ran.map(ranText).join(', ')}; ` +
          'the reproduction broke, or the build has a fix the table does not know',
      });
  }
  const knownIssues: RunKnownIssues = { policy: o.policy, fixes: states, findings };
  if (o.policy === 'off') return { verdicts: [...verdicts], knownIssues };
  const out = verdicts.map((v): Verdict => {
    const label = labels.get(v.id);
    if (!label) return v;
    if (o.policy === 'expect' && label.kind === 'known' && !v.met && !o.mustPass?.includes(v.id))
      return {
        ...v,
        knownIssue: label,
        expected: 'fail',
        met: true,
        label: 'expected failure',
      };
    return { ...v, knownIssue: label };
  });
  if (o.policy === 'expect')
    for (const f of findings.filter((x) => x.kind === 'not-reproduced'))
      out.push({
        id: KNOWN_ISSUE_NOT_REPRODUCED,
        title: `Known issue ${f.issue} reproduced`,
        status: 'passed',
        message: f.message,
        evidence: [f.url, `build: ${f.build}`],
        expected: 'fail',
        met: false,
        label: 'unexpected pass',
      });
  return { verdicts: out, knownIssues };
}

const ranText = (v: Verdict) => `${v.id} ${v.status === 'passed' ? 'passed' : 'failed without its signature'}`;

/** One line a console or a report prints for a label: "known: GH-28345 (fixed in 2.0.5)", "new", … */
export function labelText(l: KnownIssueLabel): string {
  const via = l.via ? `, via ${l.via}` : '';
  switch (l.kind) {
    case 'known':
      return `known: ${l.issue} (fixed in ${l.fixedIn}${via})`;
    case 'regression':
      return `REGRESSION of the fix of ${l.issue} (fixed in ${l.fixedIn}${via})`;
    case 'unknown':
      return `unknown: ${l.issue}? (fixed in ${l.fixedIn}; ${l.detail ?? 'the build cannot be placed'}${via})`;
    case 'new':
      return 'new';
  }
}

/** Every loud finding of a set of runs, each once per run. */
export function findingsOf(runs: readonly Pick<RunRecord, 'runId' | 'knownIssues'>[]) {
  return runs.flatMap((r) => (r.knownIssues?.findings ?? []).map((f) => ({ runId: r.runId, ...f })));
}
