// Judges check results against expectations, turning a known bug into a reproduction (--expect fail).
//
// Rules (per check; a per-check expectation overrides the scenario-level one; the default is `pass`):
//   expected pass, passed            -> "passed"            met
//   expected pass, failed            -> "failed"            NOT met
//   expected fail, failed            -> "expected failure"  met
//   expected fail, passed            -> "unexpected pass"   NOT met   (per-check expectation only)
//   skipped                          -> "skipped"           met, unless a per-check expectation said `fail`:
//                                       an expected failure that did not happen is not a reproduction.
// A failed check whose `causedBy` check failed as expected (itself, or through a chain of causes) is an expected failure
// too (unless its own expectation says `pass`): `--expect no-duplicate-ip=fail` reproduces the seed bug without
//   listing its consequences.
// Scenario-level `fail` (`--expect fail`) means "this run reproduces the bug somewhere", not "every check fails":
//   checks that fail become "expected failure" (met); checks that pass stay "passed" (met); skipped stay met.
//   If NO check failed, a synthetic verdict `scenario-expected-failure` ("unexpected pass", NOT met) is appended.
import type { CheckResult, Expectation, Verdict } from '../model/check.js';

interface Expectations {
  /** `--expect` for the whole scenario */
  scenario?: Expectation;
  /** per check ID; wins over `scenario` */
  perCheck: Record<string, Expectation>;
}

/** The ID of the synthetic verdict appended when a scenario expected to fail did not. */
export const SCENARIO_EXPECTED_FAILURE = 'scenario-expected-failure';

function judge(r: CheckResult, expected: Expectation, explicit: boolean): Verdict {
  if (r.status === 'skipped') return { ...r, expected, met: !(explicit && expected === 'fail'), label: 'skipped' };
  if (expected === 'pass') return { ...r, expected, met: r.status === 'passed', label: r.status };
  if (r.status === 'failed') return { ...r, expected, met: true, label: 'expected failure' };
  // expected fail but passed: an error for a per-check expectation, fine for a scenario-level one.
  return explicit
    ? { ...r, expected, met: false, label: 'unexpected pass' }
    : { ...r, expected, met: true, label: 'passed' };
}

/** Apply scenario-level and per-check expectations to check results, in order (see the rules at the top of this file). */
export function applyExpectations(results: readonly CheckResult[], expectations: Expectations): Verdict[] {
  const { scenario, perCheck } = expectations;
  const verdicts: Verdict[] = results.map((r) => {
    const own = Object.hasOwn(perCheck, r.id) ? perCheck[r.id] : undefined;
    return judge(r, own ?? scenario ?? 'pass', own !== undefined);
  });
  // A failure caused by a check that failed as expected is part of the same reproduction, and so is a failure caused by
  // that one (task-restarted <- alloc-restored <- no-duplicate-ip): repeated until nothing changes, whatever the order.
  for (let changed = true; changed; ) {
    changed = false;
    for (const [i, v] of verdicts.entries()) {
      const cause = v.causedBy ? verdicts.find((c) => c.id === v.causedBy) : undefined;
      const ownPass = Object.hasOwn(perCheck, v.id) && perCheck[v.id] === 'pass';
      if (!v.met && v.status === 'failed' && cause?.label === 'expected failure' && !ownPass) {
        verdicts[i] = {
          ...v,
          met: true,
          label: 'expected failure',
          message: `${v.message} (a consequence of ${cause.id}, which was expected to fail)`,
        };
        changed = true;
      }
    }
  }
  if (scenario === 'fail' && !results.some((r) => r.status === 'failed')) {
    verdicts.push({
      id: SCENARIO_EXPECTED_FAILURE,
      title: 'Scenario expected to fail',
      status: 'passed',
      message: 'the scenario was expected to fail (--expect fail) but every check passed',
      evidence: results.map((r) => `${r.id}: ${r.status}: ${r.message}`),
      expected: 'fail',
      met: false,
      label: 'unexpected pass',
    });
  }
  return verdicts;
}
