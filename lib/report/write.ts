// The only report module with I/O: redacts the run records, renders JUnit and JSON, writes them (creating folders).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { redactDeep, redactKnown } from '../log/redact.js';
import { renderJsonSummary } from './json.js';
import { renderJUnit } from './junit.js';
import type { RunRecord } from './model.js';

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
