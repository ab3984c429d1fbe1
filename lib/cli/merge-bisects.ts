// A bisect's folder among merge's inputs: its junit.xml (one suite `bisect:<check>@<good>..<bad>`) is the bisect's own
// report, and its runs/<commit>-try<n>/ are its tries: one scenario on many commits, not cells of one session. Read
// as runs they were "one cell ran on two runners" and "a suite no JSON report holds" with fixes nobody could follow
// (Q520). They are left out: said once per bisect, an error only where an input holds nothing else.
import { stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { ConfigProblem } from '../errors.js';
import type { JUnitSuites, MergeSource } from '../report/merge.js';

/**
 * The file that makes a folder a bisect's, as `bisect --resume` knows one (lib/cli/bisect-input.ts): always in the
 * bisect's own folder. Not bisect.json, which --report-json may write anywhere, a reports folder of shards too.
 */
const BISECT_MARKS = ['bisect-inputs.json'] as const;
/** A bisect's JUnit suite: `bisect:<check>@<good>..<bad>` (no scenario or cell name holds a colon). */
const BISECT_SUITE = /^bisect:/;

/** What merge reads, less the bisects': what is left, the bisects left out, and the inputs that held only those. */
interface BisectsLeftOut<C extends { sessions: MergeSource[]; junit: JUnitSuites[] }> {
  collected: C;
  /** one line per bisect left out of inputs that hold other reports */
  warnings: string[];
  /** an input that holds a bisect and nothing else to merge */
  problems: ConfigProblem[];
}

/** Whether `p` is `dir` or lies under it. */
const under = (dir: string, p: string) => p === dir || p.startsWith(dir + sep);

/**
 * Leave the bisects out of what `collect` found under the inputs `given` (relative to `cwd`): a JSON or JUnit report
 * in a folder holding a bisect's marks (the folder given or one under it: a try's folder given on its own is a run
 * like any other), and a JUnit file whose suites are a bisect's (its `--junit` written anywhere).
 */
export async function leaveOutBisects<C extends { sessions: MergeSource[]; junit: JUnitSuites[] }>(
  collected: C,
  given: readonly string[],
  cwd: string,
): Promise<BisectsLeftOut<C>> {
  const roots = given.map((g) => resolve(cwd, g));
  const marked = new Map<string, Promise<boolean>>();
  const hasMark = async (dir: string) => {
    for (const m of BISECT_MARKS) if ((await stat(join(dir, m)).catch(() => undefined))?.isFile()) return true;
    return false;
  };
  const isBisect = (dir: string) => {
    if (!marked.has(dir)) marked.set(dir, hasMark(dir));
    return marked.get(dir)!;
  };
  /** The bisect folder a report found at `file` lies in, within the input that holds it; or undefined. */
  const bisectOf = async (file: string): Promise<string | undefined> => {
    const abs = resolve(cwd, file);
    const root = roots.filter((r) => under(r, abs)).sort((a, b) => b.length - a.length)[0];
    if (root === undefined) return undefined;
    let found: string | undefined;
    for (let d = dirname(abs); under(root, d); d = dirname(d)) {
      if (await isBisect(d)) found = d;
      if (d === root) break;
    }
    return found;
  };
  const shown = (abs: string) => relative(cwd, abs) || '.';
  /** bisect (its folder, or its JUnit file) -> the reports of it found */
  const left = new Map<string, string[]>();
  /** the bisects known by their JUnit file only (written with --junit away from their folder) */
  const files = new Set<string>();
  const note = (what: string, file: string) => left.set(what, [...(left.get(what) ?? []), resolve(cwd, file)]);
  const sessions: MergeSource[] = [];
  for (const s of collected.sessions) {
    const b = await bisectOf(s.path);
    if (b === undefined) sessions.push(s);
    else note(b, s.path);
  }
  const junit: JUnitSuites[] = [];
  for (const j of collected.junit) {
    const folder = await bisectOf(j.path);
    const b = folder ?? (j.suites.some((s) => BISECT_SUITE.test(s.name)) ? resolve(cwd, j.path) : undefined);
    if (b === undefined) junit.push(j);
    else note(b, j.path);
    if (b !== undefined && folder === undefined) files.add(b);
  }
  if (!left.size) return { collected, warnings: [], problems: [] };
  const kept = [...sessions.map((s) => s.path), ...junit.map((j) => j.path)].map((p) => resolve(cwd, p));
  const warnings: string[] = [];
  const problems: ConfigProblem[] = [];
  const told = new Set<string>();
  for (const [i, root] of roots.entries()) {
    const holdsOthers = kept.some((p) => under(root, p) || dirname(p) === dirname(root));
    const bisects = [...left.keys()].filter((b) => under(root, b) || under(b, root) || dirname(b) === dirname(root));
    if (!bisects.length || holdsOthers) continue;
    for (const b of bisects) told.add(b);
    const folder = bisects.find((b) => !files.has(b));
    problems.push({
      field: 'merge input',
      value: given[i],
      message: `is a bisect's report (${bisects.map(shown).join(', ')}), which merge does not read: a bisect's junit.xml, bisect.json and report.html are its answer, and its runs/ are its tries (one scenario on many commits), not cells of one session`,
      fix: `publish the bisect's junit.xml on its own (a CI's JUnit report takes several files), and give merge the folders of the runs or matrix shards${folder ? `; one try of it is merged as a run by naming its folder (${shown(folder)}/runs/<commit>-try<n>)` : ''}`,
    });
  }
  for (const b of left.keys())
    if (!told.has(b))
      warnings.push(
        `${shown(b)} is a bisect's report: left out of the merge (its junit.xml is the bisect's answer, its runs/ its tries, not cells); publish its junit.xml on its own`,
      );
  return { collected: { ...collected, sessions, junit }, warnings, problems };
}
