// The ground floor: check results, expectations, verdicts and the one definition each check has. Imports only the model.
import type { RebootKind } from './kinds.js';
import type { KnownIssueLabel } from './known-issue.js';

/** What a check is known by, without its judge: enough to list it, validate `--expect` and name its report row. */
export interface CheckInfo {
  /** stable: expectations, JUnit case names and reports use it; unique across the registry (lib/checks/registry.ts) */
  id: string;
  /** the human name; the JUnit case is "<title> (<id>)" whether the run was real or skipped */
  title: string;
  /**
   * one sentence (a shipped check's at most 200 characters: test/unit/check-registry.test.ts): what passing means, as `list`, `--expect` help, reports and the
   * docs table show it
   */
  passesWhen: string;
  /** the long explanation behind `passesWhen` (how it is measured, real Nomad versions seen, when it is skipped); docs/checks.md only */
  details?: string;
  /** ids this check was known by before; `--expect` still takes them, with a warning naming `id` */
  formerly?: readonly string[];
}

/**
 * One check, defined once (`defineCheck`, lib/checks/define.ts): what it is, its pure judge over the scenario's
 * evidence, and its rules. Shipped checks and user-scenario checks are this same type.
 */
export interface CheckDef<E = unknown> extends CheckInfo {
  /** pure: the check's judgement of the evidence; its id and title are added by whoever runs it */
  judge(evidence: E): Judgement;
  /** the failures of other checks this check's failure explains (they become its consequences, see verdict.ts) */
  explains?: readonly Explains<E>[];
  /**
   * how a fault that is not a reboot (agent-kill, partition) changes what this check expects: its result judged again
   * for the fault (lib/checks/fault-expectations.ts asks only when the fault left the host up)
   */
  underFault?(result: CheckResult, evidence: E, fault: FaultSeen): CheckResult;
}

/** What a judge says: passed, failed or skipped, why (one line) and what was observed. */
export interface Judgement {
  status: CheckStatus;
  message: string;
  /** lines that show the reader what was observed */
  evidence?: string[];
  /** the same judgement per alloc */
  perAlloc?: AllocDetail[];
}

/** A rule on a check: when its failure explains another check's failure. */
export interface Explains<E> {
  /** the checks whose failure this one's failure may explain */
  checks: readonly CheckInfo[];
  /** pure: asked when both failed; true when, on this evidence, the other's failure is this one's consequence */
  when(evidence: E, consequence: CheckResult): boolean;
}

/** A fault that left the host up, as the checks whose meaning it changes are told (lib/checks/fault-expectations.ts). */
export interface FaultSeen {
  kind: RebootKind;
  /** the node is expected to be marked down and the alloc replaced (a partition longer than heartbeat_grace) */
  replaced: boolean;
  /** why, for messages: "agent-kill: the agent restarts, the host does not" */
  why: string;
  /** the tasks are expected to start again in the same alloc (a killed executor, a restarted Docker daemon) */
  restartsTasks?: boolean;
}

export type CheckStatus = 'passed' | 'failed' | 'skipped';

/** The outcome of one check, before expectations are applied. */
export interface CheckResult {
  id: string;
  title: string;
  status: CheckStatus;
  /** one line: why it passed, failed or was skipped */
  message: string;
  /** lines that show the reader what was observed */
  evidence: string[];
  /** the check whose failure explains this one (e.g. the alloc failed *because of* the duplicate-IP error) */
  causedBy?: string;
  /** the same check per alloc (reports show a table and one line per alloc); absent for checks about the host */
  perAlloc?: AllocDetail[];
}

/** One alloc's part of a check: which alloc, how it did, and why. */
export interface AllocDetail {
  allocId: string;
  /** the alloc's name, e.g. web.web[0] */
  name: string;
  status: CheckStatus;
  /** one line */
  detail: string;
  /** in a cluster run: the machine the alloc ran on before the fault, and the one its place runs on after it */
  nodeBefore?: string;
  nodeAfter?: string;
}

/** Whether a check is expected to pass or to fail (a known bug being reproduced). */
export type Expectation = 'pass' | 'fail';

/** A check result judged against its expectation. */
export interface Verdict extends CheckResult {
  expected: Expectation;
  /** true when the observed status met the expectation (a skipped check is met unless it was expected to fail; see verdict.ts) */
  met: boolean;
  /** what a reader sees: passed, failed, expected failure, unexpected pass, skipped */
  label: 'passed' | 'failed' | 'expected failure' | 'unexpected pass' | 'skipped';
  /** a failed check's public issue, added after judging (lib/known-issues/label.ts); absent under --known-issues off */
  knownIssue?: KnownIssueLabel;
}
