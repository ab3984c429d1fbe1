// A bisect's folder on disk: its log (one JSON event a line, appended and flushed as each thing ends, so a crash loses
// at most the try under way), the inputs it started with (what --resume re-reads), and git's own bisect log of the
// decisions (`git bisect replay` takes it in a work tree of the same repository).
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BisectEvent } from './io.js';
import type { BisectStep, BisectDirection } from '../model/bisect.js';
import { termOf } from './decide.js';

export const BISECT_LOG = 'bisect-log.jsonl';
const BISECT_INPUTS = 'bisect-inputs.json';
const GIT_BISECT_LOG = 'git-bisect.log';
/** Schema id of the inputs file and of each log line's document. */
export const BISECT_LOG_SCHEMA = 'nomad-reboot-harness/bisect-log@1';

/** What a bisect started with: enough to continue it (--resume) or to check that a replayed log fits. */
export interface BisectInputs {
  schema: typeof BISECT_LOG_SCHEMA;
  /** the options the bisect was given, parsed (a token is never among them: it comes from the environment or a file) */
  values: Record<string, unknown>;
  scenario: string;
  source: string;
  good: { ref: string; sha: string };
  bad: { ref: string; sha: string };
  check: string;
  tries: number;
  startedAt: string;
  /** the directory it started in: its relative paths and ./harness.yaml are read from there (absent before it was kept) */
  cwd?: string;
}

export async function writeInputs(dir: string, inputs: BisectInputs): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, BISECT_INPUTS), `${JSON.stringify(inputs, null, 2)}\n`);
}

export async function readInputs(dir: string): Promise<BisectInputs | undefined> {
  try {
    const doc = JSON.parse(await readFile(join(dir, BISECT_INPUTS), 'utf8')) as BisectInputs;
    return doc.schema === BISECT_LOG_SCHEMA ? doc : undefined;
  } catch {
    return undefined;
  }
}

/** Append one event; the line is on disk when this returns. */
export async function appendEvent(file: string, event: BisectEvent): Promise<void> {
  await appendFile(file, `${JSON.stringify(event)}\n`);
}

/** Every whole event of a log; a last line cut by a crash is dropped. */
export async function readEvents(file: string): Promise<BisectEvent[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  const out: BisectEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as BisectEvent);
    } catch {
      // Note: only the last line can be cut (appends are whole lines); anything after it is not there
      break;
    }
  }
  return out;
}

/**
 * The decisions as `git bisect log` writes them, with the terms this bisect used (good/bad for a regression,
 * unfixed/fixed for a fix), so `git bisect replay` reproduces the same bisection by hand. Pure.
 */
export function gitBisectLog(
  o: { old: string; new: string; direction: BisectDirection | undefined },
  steps: readonly BisectStep[],
  culprit?: string,
): string {
  const [termOld, termNew] = [termOf('old', o.direction), termOf('new', o.direction)];
  const terms = o.direction === 'fix' ? ` '--term-old=${termOld}' '--term-new=${termNew}'` : '';
  const lines = [`git bisect start${terms}`];
  for (const s of steps) {
    const term = termOf(s.decision, o.direction);
    lines.push(`# ${term}: [${s.commit.sha}] ${s.commit.subject}`, `git bisect ${term} ${s.commit.sha}`);
  }
  if (culprit) lines.push(`# first ${termNew} commit: [${culprit}]`);
  return `${lines.join('\n')}\n`;
}

export async function writeGitBisectLog(dir: string, text: string): Promise<void> {
  await writeFile(join(dir, GIT_BISECT_LOG), text);
}

/** A report or a try's console beside the log (the folder made first). */
export async function writeText(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}
