// A SessionReport around recorded runs (one suite per run), and a report context in a test folder.
import { join } from 'node:path';
import type { RunRecord } from '../../lib/model/run.js';
import type { SessionReport } from '../../lib/model/session.js';
import type { ReportContext } from '../../lib/report/reporters.js';
import { sessionExitCode } from '../../lib/report/outcome.js';

/** One suite per run (named by the run's suiteName), in a `run` session unless said otherwise. */
export function sessionOf(runs: RunRecord[], command: SessionReport['command'] = 'run'): SessionReport {
  const suites = runs.map((r) => ({
    name: r.suiteName,
    key: r.suiteName,
    scenario: r.scenario,
    counts: true,
    attempts: [r],
    rerun: {
      scope: 'suite' as const,
      argv: ['run', r.scenario],
      keepArgs: true,
      builds: [
        { property: 'nomad.binary', flag: '--nomad' as const },
        { property: 'nomad.upgrade_to', flag: '--upgrade-to' as const },
      ],
    },
  }));
  return {
    command,
    startedAtMs: 0,
    durationMs: 0,
    suites,
    interrupted: false,
    exitCode: sessionExitCode(suites, false),
    builds: [],
    kept: [],
    repeats: [],
  };
}

/** Reports under `dir`: JUnit and JSON where named, pages under dir. */
export function contextIn(dir: string, o: Partial<ReportContext> = {}): ReportContext {
  return {
    cwd: dir,
    reportsDir: dir,
    junitPath: join(dir, 'junit.xml'),
    jsonPath: join(dir, 'summary.json'),
    attachments: { mode: 'relative', projectDir: dir },
    cli: '/opt/harness/bin/reboot-harness.js',
    rawArgs: [],
    secrets: [],
    ...o,
  };
}
