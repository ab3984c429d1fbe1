// The only report module with I/O: redacts the run records, renders JUnit and JSON, writes them (creating folders).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { redactDeep, redactKnown } from '../log/redact.js';
import { renderHtml } from './html.js';
import { renderIndexHtml } from './html-index.js';
import { renderJsonSummary } from './json.js';
import { renderJUnit } from './junit.js';
import type { MergedReport } from './merge.js';
import { renderMergedJUnit } from './merge-junit.js';
import type { ArtifactRef, RunRecord } from './model.js';

export interface WriteReportsOptions {
  junitPath?: string;
  jsonPath?: string;
  /** known secret values (ACL tokens, key material) to scrub in addition to secret-shaped patterns */
  secrets: readonly string[];
}

/** Redact every string in the run records (messages, evidence, properties, paths) before anything renders them. */
export function redactRuns(runs: readonly RunRecord[], secrets: readonly string[]): RunRecord[] {
  return redactDeep([...runs], secrets);
}

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text, 'utf8');
}

/**
 * Write the JUnit and/or JSON reports for these runs; returns the paths written.
 * Note: redaction runs on the data (so escaping cannot hide a secret from it), then once more for known secrets on the output.
 */
export async function writeReports(runs: readonly RunRecord[], opts: WriteReportsOptions): Promise<string[]> {
  const { junitPath, jsonPath, secrets } = opts;
  const clean = redactRuns(runs, secrets);
  // A secret with markup characters is escaped in the output and cannot be matched there; the data pass already removed it.
  const literal = (text: string): string => redactKnown(text, secrets.filter((s) => !/["&<>'\\]/.test(s)));
  const written: string[] = [];
  if (junitPath) {
    await put(junitPath, literal(renderJUnit(clean)));
    written.push(junitPath);
  }
  if (jsonPath) {
    await put(jsonPath, literal(renderJsonSummary(clean)));
    written.push(jsonPath);
  }
  return written;
}

export interface WriteHtmlOptions {
  /** the reports folder; each run's page goes to <dir>/<runId>/report.html, next to its artifacts */
  dir: string;
  /** known secret values, as for writeReports */
  secrets: readonly string[];
}

/** A run ID as one safe path segment (no separators, no `..`), so a page can never be written outside `dir`. */
export function runDirName(runId: string): string {
  const name = runId.replace(/[^A-Za-z0-9._-]/g, '_');
  return name === '' || /^\.+$/.test(name) ? `run${name.length}` : name;
}

/**
 * Write one self-contained HTML page per run to <dir>/<runId>/report.html, through the same redaction as the
 * JUnit and JSON reports; artifact links are relative to the page. Returns the paths written.
 */
export async function writeHtmlReports(runs: readonly RunRecord[], opts: WriteHtmlOptions): Promise<string[]> {
  const { dir, secrets } = opts;
  const literal = (text: string): string => redactKnown(text, secrets.filter((s) => !/["&<>'\\]/.test(s)));
  const written: string[] = [];
  for (const run of redactRuns(runs, secrets)) {
    const path = join(dir, runDirName(run.runId), 'report.html');
    const hrefFor = (a: ArtifactRef): string => relative(dirname(resolve(path)), resolve(a.path)).split(sep).join('/');
    await put(path, literal(renderHtml(run, { hrefFor })));
    written.push(path);
  }
  return written;
}

export interface WriteMergedOptions {
  /** the output folder: junit.xml and index.html go there (links in the index are relative to it) */
  outDir: string;
  secrets: readonly string[];
  /** shown on the index page, e.g. the time of the merge */
  generatedAt?: string;
}

/** Write a merge's JUnit file and index page, through the same redaction as every other report; returns the paths. */
export async function writeMergedReports(
  report: MergedReport,
  opts: WriteMergedOptions,
): Promise<{ junit: string; index: string }> {
  const { outDir, secrets, generatedAt } = opts;
  const clean = redactDeep(report, secrets);
  const literal = (text: string): string => redactKnown(text, secrets.filter((s) => !/["&<>'\\]/.test(s)));
  const junit = join(outDir, 'junit.xml');
  const index = join(outDir, 'index.html');
  await put(junit, literal(renderMergedJUnit(clean)));
  await put(index, literal(renderIndexHtml(clean, generatedAt ? { generatedAt } : {})));
  return { junit, index };
}
