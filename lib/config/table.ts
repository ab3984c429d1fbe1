import { bool, keepMode, int, oneOf, str, configPathOf, type Field } from './fields.js';
import { timeoutSeconds } from './durations.js';
import { KNOWN_ISSUE_POLICIES } from '../model/known-issue.js';

import type { FieldRow } from './fields.js';
import { LAB_ROWS } from './table-lab.js';
import { NOMAD_ROWS } from './table-nomad.js';
import { RUN_ROWS } from './table-run.js';

/** The session's own keys: repeats, what is kept, reports, the whole-run timeout, known issues and output. */
const SESSION_ROWS: FieldRow[] = [
  {
    yaml: 'repeat',
    flag: 'repeat',
    env: 'HARNESS_REPEAT',
    doc: "run each scenario N times (each attempt from the warm lab's snapshot, or on fresh VMs with --fresh) and report every attempt and the flake rate (a failure that repeats the same way is a verdict)",
    parse: int(1, 100),
  },
  {
    yaml: 'keep',
    flag: 'keep',
    env: 'HARNESS_KEEP',
    doc: 'keep the VMs after the run and print how to reach them (reboot-harness login) and destroy them; `on-failure`: only when the run did not meet its expectations',
    parse: keepMode,
  },
  {
    yaml: 'reports.dir',
    file: 'write',
    flag: 'reports-dir',
    doc: 'where reports/<run-id>/ artifacts go',
    parse: str('give a directory path'),
  },
  {
    yaml: 'reports.junit',
    file: 'write',
    flag: 'junit',
    doc: 'JUnit XML output path (default <reports-dir>/<run-id>/junit.xml)',
    parse: str('give a file path, e.g. reports/junit.xml'),
  },
  {
    yaml: 'reports.json',
    file: 'write',
    flag: 'report-json',
    doc: 'JSON summary output path (default <reports-dir>/<run-id>/summary.json)',
    parse: str('give a file path'),
  },
  {
    yaml: 'reports.attachment_paths',
    flag: 'attachment-paths',
    doc: "JUnit [[ATTACHMENT|...]] paths: `relative` to the JUnit file's folder, from the `project` directory ($CI_PROJECT_DIR, else the working directory: what GitLab resolves them from) or `absolute` (Jenkins); `auto`: project under GitLab CI, else relative",
    parse: oneOf(['auto', 'relative', 'project', 'absolute'] as const),
  },
  {
    yaml: 'reports.artifacts',
    flag: 'artifacts',
    doc: 'when to collect artifacts',
    parse: oneOf(['on-failure', 'always', 'never'] as const),
  },
  {
    yaml: 'timeout',
    flag: 'timeout',
    env: 'HARNESS_TIMEOUT',
    path: ['timeoutS'],
    doc: 'whole-run budget (Go duration or seconds)',
    parse: timeoutSeconds(10, 6 * 3600),
  },
  {
    yaml: 'known_issues',
    flag: 'known-issues',
    env: 'HARNESS_KNOWN_ISSUES',
    doc: 'the public Nomad issue a failed check reproduces (docs/known-issues.md): `label` it (exit codes unchanged), `expect` it (a known failure is an expected failure: exit 0 when only known issues reproduced) or `off`; a known issue not reproduced, or a fix regressed, is reported under each',
    parse: oneOf(KNOWN_ISSUE_POLICIES),
  },
  {
    yaml: 'known_issues_file',
    file: 'read',
    flag: 'known-issues-file',
    env: 'HARNESS_KNOWN_ISSUES_FILE',
    doc: 'your own known-issue rows (YAML or JSON, docs/known-issues.md), added to the shipped table; a row with a shipped id replaces it',
    parse: str('give the path of a known-issue table, e.g. ./known-issues.yaml'),
  },
  {
    yaml: 'output.json',
    flag: 'json',
    doc: 'print JSON on stdout instead of text (run, compare, matrix: the JSON summary; list, doctor, build and matrix --list-cells: their own document)',
    parse: bool,
  },
  {
    yaml: 'output.verbose',
    flag: 'verbose',
    doc: "also print every local command, every SSH command with its output, every Nomad API request and Vagrant's own output",
    parse: bool,
  },
  {
    yaml: 'output.quiet',
    flag: 'quiet',
    doc: 'print only the verdict line and the checks that did not meet their expectation',
    parse: bool,
  },
];

/** All keys. docs/config.md's table is written from this list (npm run docs). */
export const FIELDS: Field[] = [...NOMAD_ROWS, ...LAB_ROWS, ...RUN_ROWS, ...SESSION_ROWS].map((r) => ({
  ...r,
  path: r.path ?? configPathOf(r.yaml),
}));
