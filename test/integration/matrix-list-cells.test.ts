// `matrix <file> --list-cells` through the real CLI path: the matrix is validated like a run, then listed, and nothing
// else happens (no build read, no host prepared, no lab, no report folder). The builds named in the file do not exist.
import t, { type Test } from 'tap';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliDeps } from '../../lib/cli/deps.js';
import { main } from '../../lib/cli/main.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import type { CellListing } from '../../lib/matrix/list.js';

const MATRIX = `scenario: bridge-exec-reboot
axes:
  nomad:
    - {name: "1.9.3", binary: ./nomad-1.9.3, expect: ["no-duplicate-ip=fail"]}
    - {name: "1.9.7", binary: ./nomad-1.9.7}
  reboot: [graceful, hard]
`;

async function cli(t: Test, argv: string[], text = MATRIX) {
  const dir = t.testdir({});
  writeFileSync(join(dir, 'nightly.yaml'), text);
  const s = standInPerRun({}, { cwd: dir });
  const effects: string[] = [];
  const deps: CliDeps = {
    ...s.deps,
    prepareHost: async () => void effects.push('prepareHost'),
    checkBinary: async (p) => void effects.push(`checkBinary ${p}`),
    makeEnv: () => {
      effects.push('makeEnv');
      throw new Error('no lab may be made while listing');
    },
  };
  const code = await main(['matrix', 'nightly.yaml', '--reports-dir', join(dir, 'reports'), ...argv], deps);
  return { code, dir, effects, out: s.out.join(''), err: s.err.join('') };
}

t.test('--list-cells --json --shards 3: every cell with its shard and command, and nothing else happens', async (t) => {
  const r = await cli(t, ['--list-cells', '--json', '--shards', '3']);
  t.equal(r.code, 0, r.err);
  const l = JSON.parse(r.out) as CellListing;
  t.equal(l.cellsInMatrix, 4);
  t.same(
    l.cells.map((c) => [c.shard, c.name]),
    [
      [1, 'bridge-exec-reboot/nomad=1.9.3/reboot=graceful'],
      [2, 'bridge-exec-reboot/nomad=1.9.3/reboot=hard'],
      [3, 'bridge-exec-reboot/nomad=1.9.7/reboot=graceful'],
      [1, 'bridge-exec-reboot/nomad=1.9.7/reboot=hard'],
    ],
  );
  t.same(l.cells[1]!.argv, [
    'matrix',
    'nightly.yaml',
    '--cell',
    'bridge-exec-reboot/nomad=1.9.3/reboot=hard',
    '--reports-dir',
    join(r.dir, 'reports'),
  ]);
  t.same(
    l.shardJobs.map((s) => s.spec),
    ['1/3', '2/3', '3/3'],
  );
  t.same(r.effects, [], 'no build checked, no host prepared, no lab made');
  t.notOk(existsSync(join(r.dir, 'reports')), 'no report folder');
});

t.test('a listed --cell command runs exactly that cell (the listing and --cell agree on names)', async (t) => {
  const r = await cli(t, ['--list-cells', '--json']);
  const l = JSON.parse(r.out) as CellListing;
  for (const c of l.cells) {
    const one = await cli(t, ['--list-cells', '--json', '--cell', c.name]);
    t.same(
      (JSON.parse(one.out) as CellListing).cells.map((x) => x.name),
      [c.name],
      c.name,
    );
  }
  const shard = await cli(t, ['--list-cells', '--shard', '2/2']);
  t.match(shard.out, /^4 cells in nightly\.yaml, 2 shards; listing only --shard 2\/2\n/);
  t.same(shard.out.split('\n').filter((l) => l.startsWith('2/2 ')).length, 2, 'two cells listed for shard 2/2');
  t.notMatch(shard.out, /\n1\/2 /, 'no cell of shard 1');
});

t.test('bad listing flags and a bad matrix are reported together, exit 2', async (t) => {
  const r = await cli(
    t,
    ['--list-cells', '--shards', '0'],
    MATRIX.replace('reboot: [graceful, hard]', 'reboot: [soft]'),
  );
  t.equal(r.code, 2);
  t.match(r.err, /axes\.reboot\[0\]/);
  t.match(r.err, /--shards/);
  t.equal((await cli(t, ['--shards', '2'])).code, 2, '--shards without --list-cells');
  const mismatch = await cli(t, ['--list-cells', '--shards', '3', '--shard', '1/2']);
  t.equal(mismatch.code, 2);
  t.match(mismatch.err, /disagrees with --shard 1\/2/);
  t.same(mismatch.effects, []);
});

t.test('--list-cells with --plan is refused: the listed commands would only print plans (N13, H12)', async (t) => {
  const r = await cli(t, ['--list-cells', '--plan', '--netns', '']);
  t.equal(r.code, 2, r.err);
  t.match(r.err, /--plan: cannot be combined with --list-cells/);
  t.equal(r.out, '', 'nothing listed');
});

t.test('a flag for what an axis varies is refused, not dropped (N12)', async (t) => {
  const r = await cli(t, ['--nomad', '/bin/true', '--reboot', 'panic', '--plan', '--netns', '']);
  t.equal(r.code, 2, r.err);
  t.match(r.err, /--nomad: every cell's nomad comes from axes\.nomad in nightly\.yaml, so the flag would be ignored/);
  t.match(r.err, /--reboot: every cell's reboot comes from axes\.reboot in nightly\.yaml/);
  const box = await cli(t, ['--box', 'x/y', '--list-cells']);
  t.equal(box.code, 0, 'a flag for something no axis varies still applies');
});

t.test("a scenario's problem with an axis value names the axis, not a flag never given (N22)", async (t) => {
  const r = await cli(t, ['--plan', '--netns', ''], 'scenario: cni-ipam-reboot\naxes:\n  driver: [exec, docker]\n');
  t.equal(r.code, 2, r.err);
  t.match(r.err, /nightly\.yaml: axes\.driver: applies to bridge-exec-reboot only/);
  t.match(r.err, /fix: remove docker from axes\.driver/);
  t.notMatch(r.err, /--driver:/);
});
