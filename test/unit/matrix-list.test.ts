// The fan-out listing (`matrix --list-cells`): shard arithmetic tied to shard(), commands that select exactly one
// cell or shard, the JSON shape CI dynamic matrices read, and the listing flags kept out of the listed commands.
import t from 'tap';
import { expandCells, shard } from '../../lib/matrix/expand.js';
import { CELLS_SCHEMA, listCells, parseShardCount, renderCellList, shardOf } from '../../lib/matrix/list.js';
import type { MatrixSpec } from '../../lib/matrix/spec.js';
import { carriedArgs } from '../../lib/cli/list-cells.js';
import { optionsOf } from '../../lib/cli/command.js';
import { matrix } from '../../lib/cli/commands/matrix.js';

const spec: Pick<MatrixSpec, 'scenarios' | 'axes'> = {
  scenarios: ['bridge-exec-reboot'],
  axes: [
    {
      name: 'nomad',
      values: ['1.9.3', '1.9.5', '1.9.7'].map((name) => ({
        name,
        binary: `./nomad-${name}`,
        expect: { perCheck: {} },
      })),
    },
    { name: 'reboot', values: ['graceful', 'hard'] },
  ],
};
const cells = expandCells(spec);

t.test("a cell's listed shard is the shard whose --shard run contains it, for every N", async (t) => {
  for (let n = 1; n <= 8; n++) {
    const l = listCells(cells, { file: 'm.yaml', shards: n });
    for (let i = 1; i <= n; i++) {
      const listed = l.cells.filter((c) => c.shard === i).map((c) => c.name);
      t.same(
        listed,
        shard(cells, i, n).map((c) => c.name),
        `N=${n} shard ${i}`,
      );
    }
    const jobs = l.shardJobs.flatMap((s) => s.cells);
    t.same([...jobs].sort(), cells.map((c) => c.name).sort(), `N=${n}: the shard jobs cover every cell exactly once`);
    t.equal(l.shardJobs.length, Math.min(n, cells.length), `N=${n}: only shards with cells become jobs`);
  }
  t.equal(shardOf(7, 3), 2);
  t.equal(shardOf(0, 5), 1);
});

t.test('the listing names each cell, its axes and the command that runs exactly it', async (t) => {
  const l = listCells(cells, { file: 'ci/nightly.yaml', shards: 4, extra: ['--config', 'ci/harness.yaml'] });
  t.equal(l.schema, CELLS_SCHEMA);
  t.equal(l.cellsInMatrix, 6);
  t.equal(l.shards, 4);
  const c = l.cells[3]!;
  t.match(c, {
    name: 'bridge-exec-reboot/nomad=1.9.5/reboot=hard',
    index: 3,
    shard: 4,
    total: 4,
    scenario: 'bridge-exec-reboot',
  });
  t.same(c.axes, { nomad: '1.9.5', reboot: 'hard' });
  t.same(c.argv, [
    'matrix',
    'ci/nightly.yaml',
    '--cell',
    'bridge-exec-reboot/nomad=1.9.5/reboot=hard',
    '--config',
    'ci/harness.yaml',
  ]);
  t.equal(
    c.command,
    "reboot-harness matrix ci/nightly.yaml --cell 'bridge-exec-reboot/nomad=1.9.5/reboot=hard' " +
      '--config ci/harness.yaml',
  );
  t.same(l.shardJobs[0], {
    shard: 1,
    total: 4,
    spec: '1/4',
    count: 2,
    cells: ['bridge-exec-reboot/nomad=1.9.3/reboot=graceful', 'bridge-exec-reboot/nomad=1.9.7/reboot=graceful'],
    argv: ['matrix', 'ci/nightly.yaml', '--shard', '1/4', '--config', 'ci/harness.yaml'],
    command: 'reboot-harness matrix ci/nightly.yaml --shard 1/4 --config ci/harness.yaml',
  });
  const odd = listCells(cells, { file: "my matrix's.yaml", shards: 1 });
  t.equal(
    odd.cells[0]!.command.split(' --cell')[0],
    "reboot-harness matrix 'my matrix'\\''s.yaml'",
    'a file name with a space and a quote is quoted for sh',
  );
});

t.test('the JSON survives a round trip and every include entry is flat enough for GitHub Actions', async (t) => {
  const l = JSON.parse(JSON.stringify(listCells(cells, { file: 'm.yaml', shards: 2 })));
  for (const s of l.shardJobs)
    for (const v of Object.values(s))
      t.ok(['string', 'number'].includes(typeof v) || Array.isArray(v), `shard ${s.spec} value ${JSON.stringify(v)}`);
  t.same(Object.keys(l), ['schema', 'file', 'cellsInMatrix', 'shards', 'cells', 'shardJobs']);
});

t.test('--shards N: a whole number from 1 to 256', async (t) => {
  t.equal(parseShardCount(undefined), 1);
  t.equal(parseShardCount('12'), 12);
  for (const bad of ['0', '257', '2.5', 'x', '-1', ''])
    t.match(parseShardCount(bad), { field: '--shards', value: bad }, bad);
});

t.test('the table names the shard, the cell and the command; empty shards are counted', async (t) => {
  const text = renderCellList(listCells(cells, { file: 'm.yaml', shards: 8 }));
  t.match(text, /^6 cells in m\.yaml, 8 shards \(2 without cells\)\n/);
  const hard = 'bridge-exec-reboot/nomad=1.9.3/reboot=hard';
  const row = text.split('\n').find((l) => l.startsWith('2/8 '));
  t.same(
    row?.split(/ +/),
    ['2/8', hard, 'reboot-harness', 'matrix', 'm.yaml', '--cell', `'${hard}'`],
    'the row of shard 2/8',
  );
  t.match(text, /\nshard 6\/8: 1 cell: reboot-harness matrix m\.yaml --shard 6\/8\n/);
});

t.test('listed commands carry the run options given, never the listing flags or the file twice', async (t) => {
  t.same(
    carriedArgs(
      ['m.yaml', '--list-cells', '--json', '--shards', '4', '--config', 'h.yaml', '--timeout=45m', '--keep'],
      optionsOf(matrix),
    ),
    ['--config', 'h.yaml', '--timeout=45m', '--keep'],
  );
  t.same(carriedArgs(['--shard', '1/2', 'm.yaml', '--cell', 'x', '--shards=2', '--list-cells'], optionsOf(matrix)), []);
});
