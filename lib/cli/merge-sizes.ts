// The files merge would read, judged by size before any is read: a huge one (a 1 GiB dump named .xml among a runner's
// artifacts) is told with the input that holds it, and that input is left out so that the others are still judged in
// the same round. lib/merge/collect.ts reads within the same bound, which holds for a file that grows after this look.
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { ConfigProblem } from '../errors.js';
import { MAX_REPORT_BYTES } from '../merge/collect.js';

/** As deep as lib/merge/collect.ts searches a folder, passing over the same folders. */
const MAX_DEPTH = 8;
const SKIP_DIRS = new Set(['node_modules', '.git', '.vagrant', '.tap']);

/** Whether collect reads the file under a folder: a JUnit candidate or a run's summary. */
const isRead = (name: string): boolean => name.endsWith('.xml') || name === 'summary.json';

async function bigUnder(dir: string, skip: string, depth: number, out: string[], max: number): Promise<void> {
  if (depth > MAX_DEPTH) return;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name) && path !== skip) await bigUnder(path, skip, depth + 1, out, max);
    } else if (e.isFile() && isRead(e.name) && ((await stat(path).catch(() => undefined))?.size ?? 0) > max)
      out.push(path);
  }
}

/**
 * Each input that holds (or is, or has beside it) a report file larger than `max`: the file told, the input left out
 * of the scan so that nothing is read whole past the bound, the other inputs read and judged as before.
 */
export async function oversizedInputs(
  inputs: readonly string[],
  o: { cwd: string; outDir: string; max?: number },
): Promise<{ problems: ConfigProblem[]; inputs: string[] }> {
  const max = o.max ?? MAX_REPORT_BYTES;
  const shown = (p: string): string => (relative(o.cwd, p).startsWith('..') ? p : relative(o.cwd, p));
  const problems: ConfigProblem[] = [];
  const kept: string[] = [];
  for (const input of inputs) {
    const path = resolve(o.cwd, input);
    const st = await stat(path).catch(() => undefined);
    const big: string[] = [];
    if (st?.isDirectory()) await bigUnder(path, resolve(o.cwd, o.outDir), 0, big, max);
    else if (st?.isFile()) {
      if (st.size > max) big.push(path);
      const beside = join(dirname(path), 'summary.json');
      if (basename(path) !== 'summary.json' && ((await stat(beside).catch(() => undefined))?.size ?? 0) > max)
        big.push(beside);
    }
    if (!big.length) {
      kept.push(input);
      continue;
    }
    for (const file of big)
      problems.push({
        field: 'merge input',
        value: shown(file),
        message: `is larger than ${max / 1024 / 1024} MiB, more than any report a run writes: not read (${input} left out)`,
        fix: 'move it out of the folder (merge reads every *.xml and summary.json under its inputs), or give the report folders one by one',
      });
  }
  return { problems, inputs: kept };
}
