// The shards (or cells) of a matrix that a merge lacks: each matrix report says which shard (i/n) of which file it ran
// and how many cells the whole matrix has, so a CI job whose reports never reached the merge is told, not merged around.
import { basename, isAbsolute, normalize } from 'node:path';
import type { ConfigProblem } from '../errors.js';
import type { SessionReport } from '../model/session.js';
import { commandLine } from '../shell/command-line.js';

interface MatrixGroup {
  file: string;
  cells: number;
  /** the cells (suite keys) the reports hold, whatever job ran them */
  present: Set<string>;
  /** the shards seen, by shard count n > 1 */
  shards: Map<number, Set<number>>;
  /** the `--cell` runs (shard 1/1) */
  single: number;
}

/**
 * Every shard i/n of a matrix file that holds cells (i <= the matrix's cells) and is not among the reports merged
 * (Q202): `merge all-reports` with one runner's artifact missing merged the others, PASS and exit 0, while the
 * failed cells of the missing shard were never read; the index said "1 cells: 1 passed" of a 2-cell matrix.
 * A matrix is known by its file's name and cell count, not its absolute path: each CI runner checks the project out
 * in a folder of its own (GitLab: `builds/<runner>/<n>/…`), and a complete merge was refused as lacking every shard
 * (Q230). Cells are what counts: every cell of the matrix among the reports, by whichever job (a shard, a `--cell`
 * re-run of a runner that died), asks for nothing; the per-cell fan-out of docs/ci.md (one `--cell` job per cell) is
 * told the cells it lacks (Q231). One `--cell` re-run merged alone asks for no other cell.
 * The file's name as given (`examples/ci/nightly.yaml`, the same on every runner of a template) tells apart two
 * matrices whose files share a last segment (`a/m.yaml`, `b/m.yaml`): grouped by that segment alone, one matrix's
 * cells counted for the other's missing shard, and the merge passed with a failing shard never read (Q270). A file
 * given by its absolute path is known by its last segment (each runner's own); reports holding more cells than the
 * matrix has are of two matrices of one name, and are told. A merged summary's cells of no matrix (a `run` merged beside
 * the shards) were counted as the matrix's, and the merged report merged again was refused as two matrices (Q350).
 */
export function missingShardProblems(sessions: readonly { path: string; session: SessionReport }[]): ConfigProblem[] {
  const groups = new Map<string, MatrixGroup>();
  for (const { session } of sessions) {
    const m = session.matrix;
    // a merge's own summary names every shard it merged: "1/3,2/3" (merged again with the rest)
    const specs = m ? m.shard.split(',').map((x) => /^(\d+)\/(\d+)$/.exec(x.trim())) : [];
    if (!m || !specs.length || specs.some((x) => x === null)) continue;
    const key = m.file && !isAbsolute(m.file) ? normalize(m.file) : basename(m.path || m.file);
    const g = groups.get(key) ?? { file: m.file, cells: 0, present: new Set(), shards: new Map(), single: 0 };
    for (const spec of specs) {
      const total = Number(spec![2]);
      if (total > 1) g.shards.set(total, (g.shards.get(total) ?? new Set()).add(Number(spec![1])));
      else g.single++;
    }
    // a merged summary may hold cells of no matrix (a `run` merged beside the shards, Q350): only its matrix cells count
    for (const s of session.suites)
      if (session.command !== 'merge' || s.rerun.argv[0] === 'matrix') g.present.add(s.key);
    g.cells = Math.max(g.cells, m.cellsInMatrix);
    groups.set(key, g);
  }
  const problems: ConfigProblem[] = [];
  for (const g of groups.values()) {
    const lost = g.cells - g.present.size;
    if (lost < 0) {
      problems.push({
        field: 'merge input',
        value: [...g.present].sort(),
        message: `the reports of ${g.file} hold ${g.present.size} cells, more than the ${g.cells} of the matrix: they are of two matrix files of that name, whose missing shards cannot be told apart`,
        fix: 'merge the reports of each matrix file on its own (or give each matrix file a name of its own)',
      });
      continue;
    }
    if (lost <= 0 || (g.shards.size === 0 && g.single <= 1)) continue;
    const left = `${lost} of its ${g.cells} cells would be left out of the merge`;
    for (const [total, seen] of g.shards) {
      const holding = Array.from({ length: Math.min(total, g.cells) }, (_, i) => i + 1);
      const missing = holding.filter((i) => !seen.has(i));
      if (!missing.length) continue;
      const specs = missing.map((i) => `${i}/${total}`);
      problems.push({
        field: 'merge input',
        value: specs,
        message: `the reports of ${g.file} hold shard ${[...seen]
          .sort((a, b) => a - b)
          .map((i) => `${i}/${total}`)
          .join(
            ', ',
          )}${g.single ? ` and ${g.single} --cell run${g.single === 1 ? '' : 's'}` : ''}, not ${specs.join(', ')}: ${left}`,
        fix: `give the reports of every shard (${commandLine(['reboot-harness', 'matrix', g.file, '--list-cells', '--shards', total])} lists each shard's cells), or run the missing ones`,
      });
    }
    if (g.shards.size === 0)
      problems.push({
        field: 'merge input',
        value: [...g.present].sort(),
        message: `the reports of ${g.file} are ${g.single} --cell runs, not one per cell: ${left}`,
        fix: `give the reports of every cell's job (${commandLine(['reboot-harness', 'matrix', g.file, '--list-cells'])} lists the cells), or merge one --cell re-run alone`,
      });
  }
  return problems;
}
