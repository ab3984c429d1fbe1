// Writes the run's evidence files under reports/<run-id>/ through the one file writer (which redacts them).
import { join } from 'node:path';
import type { Logger } from '../log/events.js';
import { writeFiles } from '../report/write.js';
import type { ArtifactRef } from '../model/run.js';
import type { PendingArtifact } from './context.js';

/** Write pending artifacts (redacted) into `dir`; returns references for the reports. A file that cannot be written is logged, not fatal. */
export async function writeArtifacts(
  dir: string,
  items: PendingArtifact[],
  secrets: string[],
  logger: Logger,
): Promise<ArtifactRef[]> {
  const refs: ArtifactRef[] = [];
  if (!items.length) return refs;
  for (const a of items) {
    const safeName = a.name.replace(/[^A-Za-z0-9._-]/g, '_');
    const path = join(dir, safeName);
    try {
      await writeFiles([{ kind: 'evidence', path, text: a.content, raw: true }], secrets);
      refs.push(a.caseName === undefined ? { name: safeName, path } : { name: safeName, path, caseName: a.caseName });
    } catch (err) {
      logger({
        kind: 'warn',
        t: 0,
        message: `could not write artifact ${path}: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  }
  return refs;
}
