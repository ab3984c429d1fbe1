// The ground floor: check results, expectations, verdicts and the one definition each check has. Imports nothing.

/** One check, defined once: its id (stable: expectations, JUnit case names and reports use it), title and rule. */
export interface CheckDef {
  id: string;
  /** the human name; the JUnit case is "<title> (<id>)" whether the run was real or skipped */
  title: string;
  /** one line: when the check passes (list, --help, README tables) */
  passesWhen: string;
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
}
