// The known-issue table as a session uses it: the shipped rows with the user's file over them (read and validated
// before anything runs, exit 2 with every problem), git ancestry of the fix commits in each source build, and one
// judged run labelled (lib/known-issues/label.ts) with its outcome recomputed from the labelled verdicts.
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { HarnessConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import type { ResolvedBuild } from '../model/build.js';
import type { KnownIssue } from '../model/known-issue.js';
import type { RunRecord } from '../model/run.js';
import type { Scenario } from '../run/scenario.js';
import { describeOrigin } from '../builds/provenance.js';
import { KNOWN_ISSUES } from '../known-issues/table.js';
import { labelVerdicts, type Ancestry, type BuildUnderTest } from '../known-issues/label.js';
import { mergeTables, parseKnownIssues } from '../known-issues/validate.js';
import { outcomeOf } from '../report/outcome.js';

/** The table of a session: the shipped rows, and the user's file (`known_issues_file`) over them. */
export async function loadKnownIssueTable(
  config: Pick<HarnessConfig, 'knownIssuesFile'>,
  scenarios: readonly Scenario[],
): Promise<KnownIssue[]> {
  const file = config.knownIssuesFile;
  if (!file) return [...KNOWN_ISSUES];
  let raw: unknown;
  try {
    const text = await readFile(file, 'utf8');
    raw = parseYaml(text) as unknown;
  } catch (err) {
    // Note: a relative path is read from the working directory, not from harness.yaml's folder: say where it looked.
    const where = isAbsolute(file) ? '' : ` (a relative path is read from the working directory: ${resolve(file)})`;
    throw new ConfigError([
      {
        field: 'known_issues_file (--known-issues-file)',
        value: file,
        message: `cannot be read: ${(err as Error).message.split('\n')[0]}${where}`,
        fix: 'give a readable YAML or JSON file (docs/known-issues.md shows one)',
      },
    ]);
  }
  const ctx = {
    checks: [...new Set(scenarios.flatMap((s) => s.checks.map((c) => c.id)))],
    scenarios: scenarios.map((s) => s.name),
  };
  const parsed = parseKnownIssues(raw, file, ctx);
  if ('problems' in parsed) throw new ConfigError(parsed.problems);
  return mergeTables(KNOWN_ISSUES, parsed.rows);
}

/** Every fix commit the table names (what git ancestry is asked about for a source build). */
export const fixCommitsOf = (table: readonly KnownIssue[]): string[] => [
  ...new Set(table.flatMap((r) => r.fixes.map((f) => f.commit))),
];

/** A resolved build as the labeller sees it, with the ancestry answers of a source build. */
export function buildUnderTest(b: ResolvedBuild, ancestry: Ancestry | undefined): BuildUnderTest {
  return {
    describe: `${b.spec} (${b.version || 'no version'}; ${describeOrigin(b.origin)})`,
    version: b.version,
    origin: b.origin.kind,
    ...(ancestry ? { ancestry } : {}),
  };
}

/** A judged run labelled under the config's policy; its outcome follows the labelled verdicts (expect may meet them). */
export function labelRecord(
  record: RunRecord,
  config: Pick<HarnessConfig, 'knownIssues' | 'reboot' | 'task'> & Partial<Pick<HarnessConfig, 'expect'>>,
  table: readonly KnownIssue[],
  build: BuildUnderTest | undefined,
): RunRecord {
  if (!record.verdicts.length) return record;
  const { verdicts, knownIssues } = labelVerdicts(record.verdicts, {
    table,
    policy: config.knownIssues,
    build,
    facts: { scenario: record.scenario, kind: config.reboot.kind, driver: config.task.driver },
    mustPass: Object.entries(config.expect?.perCheck ?? {}).flatMap(([id, e]) => (e === 'pass' ? [id] : [])),
  });
  // as the runner judged it: an error after the checks (a failed teardown is a step, not record.error) still counts
  const broke = record.error ?? record.steps.find((x) => x.status === 'error');
  return { ...record, verdicts, knownIssues, outcome: outcomeOf(verdicts, broke, record.interrupted) };
}
