// The ground floor: public Nomad issues the harness reproduces (one row each), the label a failed check gets from them
// and the loud findings they raise. Imports only the model. The table is lib/known-issues/table.ts.
import type { RebootKind, TaskDriver } from './kinds.js';

/** What a session does with the table: labels only (today's exit codes), known failures expected, or nothing shown. */
export type KnownIssuePolicy = 'label' | 'expect' | 'off';
export const KNOWN_ISSUE_POLICIES: readonly KnownIssuePolicy[] = ['label', 'expect', 'off'];

/** Where one branch of Nomad got the fix: the commit and the CHANGELOG line that says so. */
export interface FixCommit {
  /** `main`, `release/2.0.x`, … */
  branch: string;
  /** the full 40-hex commit on that branch */
  commit: string;
}

/** One line of releases (`1.11`, or `1.11+ent` for Enterprise builds) and its first release with the fix. */
export interface LineFix {
  /** the first release of the line with the fix; null: no release of the line has it (every one of it lacks it) */
  fixedIn: string | null;
  /** why, when it is not obvious (no public tag, an Enterprise-only backport) */
  note?: string;
}

/** When a row's failure is expected at all: every listed condition must hold. */
export interface KnownIssueConditions {
  /** fault kinds that show it (undefined: any) */
  kinds?: readonly RebootKind[];
  /** task drivers that show it (undefined: any; a run that records none ran `exec`) */
  drivers?: readonly TaskDriver[];
  /** scenarios that show it (undefined: any) */
  scenarios?: readonly string[];
}

/** One public issue: what catches it, when, and where it is fixed. */
export interface KnownIssue {
  /** `GH-28345`: the number of the CHANGELOG entry (the PR the CHANGELOG links) or of the issue */
  id: string;
  title: string;
  /** https://github.com/hashicorp/nomad/issues/N */
  url: string;
  /** the checks whose failure it explains */
  checks: readonly string[];
  conditions: KnownIssueConditions;
  /**
   * The crash signature, for a row keyed by a check as broad as `no-agent-crash` (any panic on an old build is not
   * this issue): regular expressions (JavaScript syntax, as strings) that must EACH match the failed check's message
   * or one of its evidence lines for the row to explain it (`|` inside one gives alternatives). Undefined: any failure
   * of its checks.
   */
  signature?: string | readonly string[];
  /**
   * `always`: under its conditions, on a build without the fix, it must reproduce (a pass is a loud finding);
   * `sometimes`: it may not (a race, or a fault the harness does not fully make)
   */
  reproduces: 'always' | 'sometimes';
  /** the fix commits, per branch (git ancestry of any of them in a source build's tree means the build has the fix) */
  fixes: readonly FixCommit[];
  /** per release line, e.g. `{ '2.0': { fixedIn: '2.0.5' }, '1.11': { fixedIn: null } }` */
  lines: Readonly<Record<string, LineFix>>;
  /** the first release cut from main with the fix: every later line has it (undefined: none yet) */
  sinceRelease?: string;
  /** where the row comes from: the CHANGELOG line (with the tag that first has it) and the commits */
  source: { changelog: string; tag?: string; note?: string };
}

/** Whether a build has an issue's fix, and how that was decided. */
export type FixState =
  | { has: 'yes' | 'no'; by: 'ancestry' | 'version'; detail: string }
  | { has: 'unknown'; detail: string };

/**
 * The label of one failed check, added after judging (lib/known-issues/label.ts):
 * - known: a row explains it and the build lacks the fix;
 * - regression: a row explains it but the build has the fix (loud: never "known");
 * - unknown: a row explains it, the build's fix state cannot be told (no entry for its line);
 * - new: no row explains it.
 */
export interface KnownIssueLabel {
  kind: 'known' | 'regression' | 'unknown' | 'new';
  /** the row's id (not for new) */
  issue?: string;
  url?: string;
  /** "2.0.5" or "1.10.6, 1.11.0": the releases with the fix */
  fixedIn?: string;
  /** how the build's fix state was decided */
  detail?: string;
  /** the failed check whose label this one follows (a consequence: causedBy) */
  via?: string;
}

/** A finding every policy reports loudly. */
export interface KnownIssueFinding {
  /**
   * not-reproduced: a row that must reproduce did not, on a build without its fix, its conditions held and a check ran;
   * fix-regressed: a row's check failed on a build that has its fix
   */
  kind: 'not-reproduced' | 'fix-regressed';
  issue: string;
  url: string;
  checks: string[];
  /** the build, one line (spec, version, origin) */
  build: string;
  /** one line for people */
  message: string;
}

/** What the labeller recorded on one run: the policy, each row's fix state where its checks ran, the findings. */
export interface RunKnownIssues {
  policy: KnownIssuePolicy;
  /** per row id (rows whose checks the run has): does the build have the fix */
  fixes: Record<string, FixState>;
  findings: KnownIssueFinding[];
}
