// `reboot-harness merge <report folders or JUnit files>... [--out dir]`: the reports of many runners (matrix shards,
// cells) as one JUnit file and one index page linking every cell's page (docs/ci.md).
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ConfigError } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import { redact } from '../log/redact.js';
import { collectInputs } from '../merge/collect.js';
import { attachmentLocator } from '../merge/locate.js';
import { mergeReports } from '../report/merge.js';
import { attachmentBase, attachmentPath } from '../report/attachment-paths.js';
import { writeMergedReports } from '../report/write.js';
import { runDirName } from '../report/reporters.js';
import type { ParsedArgs } from './args.js';
import { pathProblem } from './paths.js';
import type { CliDeps } from './deps.js';

/** Merge the inputs and write <out>/junit.xml and <out>/index.html; exit code as for `run` over the merged cells. */
export async function mergeCommand(args: ParsedArgs, config: HarnessConfig, deps: CliDeps): Promise<number> {
  const given = typeof args.values['out'] === 'string' ? (args.values['out'] as string) : undefined;
  const out = given ?? join(config.reports.dir, 'merged');
  const outDir = resolve(deps.cwd, out);
  const bad = await pathProblem(
    { field: given === undefined ? '--out (default <reports-dir>/merged)' : '--out', value: out, kind: 'dir' },
    deps.cwd,
  );
  const found = await collectInputs(args.positionals, { cwd: deps.cwd, outDir });
  if (bad || found.problems.length) throw new ConfigError([...(bad ? [bad] : []), ...found.problems]);
  const href = (abs: string): string => relative(outDir, abs).split(sep).join('/');
  const pageFor = (runId: string): string | undefined => {
    const page = found.pages.get(runDirName(runId));
    return page === undefined ? undefined : href(page);
  };
  const locate = attachmentLocator(found.files);
  const base = attachmentBase(config.reports.attachmentPaths, deps.env, deps.cwd);
  const attachmentFor = (path: string, source: string): string | undefined => {
    const file = locate(path, dirname(resolve(deps.cwd, source)));
    return file === undefined ? undefined : attachmentPath(base, join(outDir, 'junit.xml'), file);
  };
  const merged = mergeReports({ junit: found.junit, summaries: found.summaries, pageFor, attachmentFor });
  if (!merged.ok) throw new ConfigError(merged.problems);
  const { report } = merged;
  const secrets = config.nomad.token ? [config.nomad.token] : [];
  const paths = await writeMergedReports(report, { outDir, secrets, generatedAt: new Date().toISOString() });
  for (const w of report.warnings) deps.err(redact(`warning: ${w}\n`, secrets));
  const t = report.totals;
  const noPage = report.cells.filter((c) => !c.page).length;
  const lines = [
    `merged ${report.cells.length} suites from ${found.junit.length} JUnit files: ${t.tests} tests, ` +
      `${t.failures} failures, ${t.errors} errors, ${t.skipped} skipped`,
    ...(noPage ? [`${noPage} of ${report.cells.length} cells have no HTML page among the inputs`] : []),
    ...(report.attachments.unresolved
      ? [`${report.attachments.unresolved} attachment lines name files not among the inputs (kept as written)`]
      : []),
    `reports: ${[paths.junit, paths.index].map((p) => relative(deps.cwd, p) || '.').join(' ')}`,
  ];
  deps.out(redact(`${lines.join('\n')}\n`, secrets));
  return report.exitCode;
}
