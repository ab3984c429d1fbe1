// The shards of a matrix that a merge lacks: each matrix report says which shard (i/n) of which file it ran and how many
// cells the whole matrix has, so a CI job whose reports never reached the merge is told, not merged around.
import type { ConfigProblem } from '../errors.js';
import type { SessionReport } from '../model/session.js';

/**
 * Every shard i/n of a matrix file that holds cells (i <= the matrix's cells) and is not among the reports merged
 * (Q202): `merge all-reports` with one runner's artifact missing merged the others, PASS and exit 0, while the
 * failed cells of the missing shard were never read; the index said "1 cells: 1 passed" of a 2-cell matrix. A `--cell`
 * re-run (shard 1/1) and a shard with no cells ask for nothing.
 */
export function missingShardProblems(sessions: readonly { path: string; session: SessionReport }[]): ConfigProblem[] {
  const groups = new Map<string, { file: string; total: number; cells: number; seen: Set<number> }>();
  for (const { session } of sessions) {
    const m = session.matrix;
    const spec = m ? /^(\d+)\/(\d+)$/.exec(m.shard) : null;
    if (!m || !spec) continue;
    const total = Number(spec[2]);
    const key = `${m.path}\u0000${total}`;
    const g = groups.get(key) ?? { file: m.file, total, cells: m.cellsInMatrix, seen: new Set<number>() };
    g.seen.add(Number(spec[1]));
    g.cells = Math.max(g.cells, m.cellsInMatrix);
    groups.set(key, g);
  }
  const problems: ConfigProblem[] = [];
  for (const g of groups.values()) {
    const holding = Array.from({ length: Math.min(g.total, g.cells) }, (_, i) => i + 1);
    const missing = holding.filter((i) => !g.seen.has(i));
    if (!missing.length) continue;
    // cell k runs in shard k mod n + 1
    const lost = Array.from({ length: g.cells }, (_, k) => (k % g.total) + 1).filter((i) => missing.includes(i)).length;
    const specs = missing.map((i) => `${i}/${g.total}`);
    problems.push({
      field: 'merge input',
      value: specs,
      message: `the reports of ${g.file} hold shard ${[...g.seen]
        .sort((a, b) => a - b)
        .map((i) => `${i}/${g.total}`)
        .join(', ')}, not ${specs.join(', ')}: ${lost} of its ${g.cells} cells would be left out of the merge`,
      fix: `give the reports of every shard (reboot-harness matrix ${g.file} --list-cells --shards ${g.total} lists each shard's cells), or run the missing ones`,
    });
  }
  return problems;
}
