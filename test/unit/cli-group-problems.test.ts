// One mistake that reaches many matrix cells is told once with its count; a big matrix is named before it runs.
import t from 'tap';
import { groupCellProblems } from '../../lib/cli/group-problems.js';
import { MANY_CELLS, sizeWarning } from '../../lib/plan/matrix.js';

t.test(
  'identical per-cell problems are one, naming the count and the first cells; others stay as they are',
  async (t) => {
    const docker = (cell: string) => ({
      field: `cell ${cell}: --driver`,
      value: 'docker',
      message: 'needs a box with Docker',
      fix: 'build it',
    });
    const cells = Array.from({ length: 300 }, (_, i) => `s/nomad=b${i}/driver=docker`);
    const other = { field: '--cpus', value: '0', message: 'must be a whole number', fix: 'give 1-16' };
    const out = groupCellProblems([other, ...cells.map(docker), docker('x/only')]);
    t.same(out, [
      other,
      {
        field: '301 cells (s/nomad=b0/driver=docker, s/nomad=b1/driver=docker and 299 more): --driver',
        value: 'docker',
        message: 'needs a box with Docker',
        fix: 'build it',
      },
    ]);
    const alone = groupCellProblems([docker('a'), { ...docker('b'), value: 'podman' }]);
    t.same(
      alone.map((p) => p.field),
      ['cell a: --driver', 'cell b: --driver'],
      'a different value is a different problem; one cell keeps its own name',
    );
    t.same(groupCellProblems([docker('a'), docker('b')])[0]!.field, '2 cells (a, b): --driver');
  },
);

t.test('a matrix of more than 100 cells in one runner is named with its hours and how to shard it', async (t) => {
  t.equal(sizeWarning(MANY_CELLS, MANY_CELLS, 1), undefined);
  t.equal(
    sizeWarning(1200, 1200, 2),
    'the matrix has 1200 cells: at about 5 min a cell and parallel 2, about 50 h; narrow an axis, or spread it over runners (matrix <file> --list-cells --shards N, then --shard i/N on each)',
  );
  t.match(sizeWarning(300, 1200, 1), /^this shard has 300 of the matrix's 1200 cells: .*about 25 h/);
  t.equal(sizeWarning(60, 1200, 1), undefined, "a shard's share that is small is fine");
});
