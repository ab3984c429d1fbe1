// What a bisect's record on disk (its bisect-inputs.json and its log) holds when a bisect wrote it, judged field by
// field: --resume and --replay take it as done work, so a record changed by hand or by another tool is told, never
// taken for verdicts of another check or read up to a spoiled line. Pure but for spoiledLog's read.
import { readFile } from 'node:fs/promises';
import type { ConfigProblem } from '../errors.js';
import type { BisectInputs } from '../bisect/log.js';
import type { BisectTry } from '../model/bisect.js';

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isText = (x: unknown): x is string => typeof x === 'string' && x !== '';

/**
 * What makes a bisect-inputs.json that parses unlike the one a bisect writes (a field changed by hand or by another
 * tool), or undefined: its fields are read as they are (the commits, the directory, the line), and a field of another
 * type would end the bisect as an internal error, or as a problem that names a flag nobody gave. Pure.
 */
export function inputsShapeProblem(doc: BisectInputs): string | undefined {
  const d = doc as unknown as Record<string, unknown>;
  const wrong: string[] = [];
  if (!isObject(d['values'])) wrong.push('"values" is not an object');
  for (const k of ['scenario', 'source', 'check'] as const) if (!isText(d[k])) wrong.push(`"${k}" is not a text`);
  for (const k of ['good', 'bad'] as const) {
    const end = d[k];
    if (!isObject(end) || !isText(end['ref']) || !isText(end['sha']) || !/^[0-9a-f]{7,64}$/.test(end['sha']))
      wrong.push(`"${k}" is not {ref, sha} with a commit`);
  }
  if (d['cwd'] !== undefined && !isText(d['cwd'])) wrong.push('"cwd" is not a directory');
  return wrong.length ? `is not one a bisect wrote: ${wrong.join(', ')}` : undefined;
}

/**
 * What in the `values` of a bisect-inputs.json (the line --resume hands the bisect again) disagrees with the record
 * beside it, or names no option of bisect, or undefined. The record is what the log's tries judged and the commits they
 * ran (`check`, `source`, `good.ref`, `bad.ref`); the line is what the resumed bisect judges from then on: a `values.check`
 * changed by hand took the log's tries for the other check's verdicts without a word (Q542), and a key that is no
 * option was ignored (Q512). `options`: bisect's option names (undefined: not judged). Pure.
 */
export function valuesProblem(doc: BisectInputs, options: ReadonlySet<string> | undefined): string | undefined {
  const values = doc.values as Record<string, unknown>;
  const wrong: string[] = [];
  const unknown = options ? Object.keys(values).filter((k) => !options.has(k)) : [];
  if (unknown.length)
    wrong.push(
      `${unknown.map((k) => `values.${k}`).join(', ')} ${unknown.length === 1 ? 'is no option' : 'are no options'} of bisect`,
    );
  const recorded: [string, string, unknown][] = [
    ['check', 'check', doc.check],
    ['source', 'source', doc.source],
    ['good', 'good.ref', doc.good.ref],
    ['bad', 'bad.ref', doc.bad.ref],
  ];
  for (const [key, field, value] of recorded) {
    // Note: a bisect started without --source bisects git:. and writes no values.source
    const given = key === 'source' && values[key] === undefined ? 'git:.' : values[key];
    if (given !== value)
      wrong.push(`values.${key} ${JSON.stringify(given) ?? 'is missing and'} is not ${field} ${JSON.stringify(value)}`);
  }
  return wrong.length ? `is not one a bisect wrote: ${wrong.join('; ')}` : undefined;
}

/**
 * The first event of a bisect log unlike those a bisect writes (one that is no object, a build without its result, a
 * try without its verdict), or undefined: the log's builds and tries are taken as done, so one of another shape would
 * end the bisect as an internal error. An event of a kind it does not know is passed over, as the bisect does. Pure.
 */
export function eventsProblem(events: readonly unknown[]): string | undefined {
  const i = events.findIndex((ev) => {
    if (!isObject(ev) || typeof ev['e'] !== 'string') return true;
    if (ev['e'] === 'build')
      return !isText(ev['commit']) || !isObject(ev['build']) || typeof ev['build']['ok'] !== 'boolean';
    if (ev['e'] === 'try')
      return (
        !isText(ev['commit']) ||
        !isObject(ev['try']) ||
        !(VERDICTS as readonly unknown[]).includes(ev['try']['verdict']) ||
        typeof ev['try']['ms'] !== 'number'
      );
    return false;
  });
  return i < 0
    ? undefined
    : `holds an event a bisect does not write (event ${i + 1} of ${events.length}: ${JSON.stringify(events[i]).slice(0, 80)})`;
}

/**
 * A try's verdicts as a bisect writes them (lib/model/bisect.ts): another word (a hand-edited "maybe") was taken as
 * "no verdict" and made its commit a skip without a word (Q543).
 */
const VERDICTS = [
  'passed',
  'failed',
  'skipped',
  'error',
  'interrupted',
] as const satisfies readonly BisectTry['verdict'][];

/**
 * The first line of a bisect log's `text` that is not JSON and is not its last line, or undefined. Only the last line
 * can be cut (a crash mid-append); the log is read up to a line that does not parse, so a line spoiled further up
 * (a hand edit) dropped every event after it without a word, and their tries ran again (Q543). Pure.
 */
function spoiledLine(text: string): string | undefined {
  const lines = text.split('\n');
  const last = lines.findLastIndex((l) => l.trim() !== '');
  const i = lines.findIndex((l, n) => {
    if (n >= last || !l.trim()) return false;
    try {
      JSON.parse(l);
      return false;
    } catch {
      return true;
    }
  });
  return i < 0
    ? undefined
    : `line ${i + 1} is not an event (${JSON.stringify(lines[i]!.slice(0, 60))}), so the ${lines.slice(i + 1).filter((l) => l.trim()).length} line(s) after it would be dropped`;
}

/** spoiledLine of the log at `file` (none when it cannot be read: readEvents then reads no event either). */
export const spoiledLog = async (file: string): Promise<string | undefined> =>
  spoiledLine(await readFile(file, 'utf8').catch(() => ''));

export const damagedInputs = (field: string, value: unknown, message: string): ConfigProblem => ({
  field,
  value,
  message,
  fix:
    field === '--replay'
      ? 'put the file back as the bisect wrote it (its check and scenario are compared with this line), or bisect without --replay'
      : 'start the bisect again with its line (reboot-harness bisect <scenario> --source … --good … --bad … --check …), or put the file back as the bisect wrote it',
});

export const damagedLog = (field: string, value: unknown, what: string): ConfigProblem => ({
  field,
  value,
  message: what,
  fix: 'remove that line (a try or build it held is done again), or start the bisect again',
});
