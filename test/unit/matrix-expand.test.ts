// Matrix expansion (stable names, axis order), sharding, per-cell config and the run plan's problems.
import t from 'tap';
import { vmOverheadMb } from '../../lib/lab/providers.js';
import { DEFAULTS } from '../../lib/config/schema.js';
import {
  cellConfig,
  cellCostMb,
  expandCells,
  parseShard,
  planProblems,
  shard,
  shiftSubnet,
} from '../../lib/matrix/expand.js';
import type { MatrixSpec, NomadEntry } from '../../lib/matrix/spec.js';
import { findScenario } from '../../lib/cli/scenarios.js';

const n193: NomadEntry = { name: '1.9.3', binary: './a', expect: { perCheck: { 'no-duplicate-ip': 'fail' } } };
const n197: NomadEntry = { name: '1.9.7', binary: './b', expect: { perCheck: {} } };
const spec: Pick<MatrixSpec, 'scenarios' | 'axes'> = {
  scenarios: ['bridge-exec-reboot'],
  axes: [
    { name: 'nomad', values: [n193, n197] },
    { name: 'reboot', values: ['graceful', 'hard'] },
  ],
};

t.test('cells are the cartesian product with stable names, axes in file order, last axis fastest', async (t) => {
  const cells = expandCells(spec);
  t.same(
    cells.map((c) => c.name),
    [
      'bridge-exec-reboot/nomad=1.9.3/reboot=graceful',
      'bridge-exec-reboot/nomad=1.9.3/reboot=hard',
      'bridge-exec-reboot/nomad=1.9.7/reboot=graceful',
      'bridge-exec-reboot/nomad=1.9.7/reboot=hard',
    ],
  );
  t.same(
    cells.map((c) => c.index),
    [0, 1, 2, 3],
  );
  t.equal(cells[1]!.reboot, 'hard');
  t.equal(cells[1]!.nomad, n193);
  const flipped = expandCells({ ...spec, axes: [spec.axes[1]!, spec.axes[0]!] });
  t.equal(
    flipped[0]!.name,
    'bridge-exec-reboot/reboot=graceful/nomad=1.9.3',
    "the file's axis order is the name's order",
  );
  t.same(
    expandCells(spec).map((c) => c.name),
    cells.map((c) => c.name),
    'the same file gives the same names every time',
  );
  t.same(
    expandCells({ scenarios: ['a', 'b'], axes: [] }).map((c) => c.name),
    ['a', 'b'],
    'no axes: one cell per scenario',
  );
  t.equal(expandCells({ scenarios: ['a', 'b'], axes: [{ name: 'box', values: ['x', 'y', 'z'] }] }).length, 6);
});

t.test('every cell is in exactly one shard for n = 1..7, deterministic and balanced', async (t) => {
  const cells = expandCells({
    scenarios: ['s'],
    axes: [
      { name: 'box', values: ['a', 'b', 'c', 'd', 'e'] },
      { name: 'reboot', values: ['graceful', 'hard'] },
    ],
  });
  t.equal(cells.length, 10);
  for (let n = 1; n <= 7; n++) {
    const shards = Array.from({ length: n }, (_, k) => shard(cells, k + 1, n));
    const all = shards
      .flat()
      .map((c) => c.name)
      .sort();
    t.same(all, cells.map((c) => c.name).sort(), `n=${n}: the union is every cell`);
    t.equal(new Set(all).size, cells.length, `n=${n}: no cell twice`);
    const sizes = shards.map((s) => s.length);
    t.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `n=${n}: sizes ${sizes.join(',')} differ by at most one`);
    t.same(
      Array.from({ length: n }, (_, k) => shard(cells, k + 1, n)),
      shards,
      `n=${n}: the same split again`,
    );
  }
  t.same(shard(cells.slice(0, 2), 3, 3), [], 'more shards than cells: an empty shard');
});

t.test('--shard is i/n, 1-based', async (t) => {
  t.same(parseShard(undefined), { i: 1, n: 1 });
  t.same(parseShard('2/4'), { i: 2, n: 4 });
  for (const bad of ['0/4', '5/4', '1/0', '2', 'a/b', '1/2/3', '-1/2'])
    t.match(parseShard(bad), { field: '--shard', value: bad, fix: /--shard 2\/4/ }, bad);
});

t.test("a cell's config: build, expectations, reboot kind on top of the base; subnets per slot", async (t) => {
  const base = structuredClone(DEFAULTS);
  base.expect.perCheck = { 'unique-ips': 'pass' };
  const [c0, c1] = expandCells(spec);
  const cfg = cellConfig(base, c1!, 0, (p) => `/m/${p}`);
  t.equal(cfg.nomadBinary, '/m/./a', 'binary resolved by the caller (against the matrix file)');
  t.equal(cfg.reboot.kind, 'hard');
  t.same(
    cfg.expect.perCheck,
    { 'unique-ips': 'pass', 'no-duplicate-ip': 'fail' },
    "the entry's expectations on top of the base",
  );
  t.equal(cfg.lab.privateSubnet, '10.199.0.0/24', 'slot 0 keeps the base subnets');
  t.equal(base.reboot.kind, 'graceful', 'the base is not mutated');
  const s3 = cellConfig(base, c0!, 3);
  t.equal(s3.lab.privateSubnet, '10.199.3.0/24');
  t.equal(s3.lab.managementSubnet, '10.198.3.0/24');
  t.equal(shiftSubnet('10.199.250.0/24', 6), undefined);
  // two VMs, each its memory plus QEMU's own share under emulation (160 MiB + the 256 MiB translation cache)
  t.equal(cellCostMb(base, vmOverheadMb(base)), 2 * (768 + 160 + 256));
  t.equal(
    cellCostMb({ lab: { ...base.lab, servers: 3, clients: 2 } }, vmOverheadMb(base)),
    5 * (768 + 160 + 256),
    'a 3+2 cell: five VMs',
  );
  t.equal(
    cellCostMb(
      { lab: { ...base.lab, libvirtDriver: 'kvm' } },
      vmOverheadMb({ lab: { ...base.lab, libvirtDriver: 'kvm' } }),
    ),
    2 * (768 + 160),
    'no translation cache under KVM',
  );
});

t.test('plan problems: a cell bigger than the budget, subnets that run out or overlap', async (t) => {
  const base = structuredClone(DEFAULTS);
  const cells = expandCells(spec).map((cell) => ({ cell, config: cellConfig(base, cell, 0) }));
  t.same(planProblems(cells, 2, 4096, 'm.yaml', vmOverheadMb), []);
  const tight = planProblems(cells, 1, 1500, 'm.yaml', vmOverheadMb);
  t.equal(tight.length, 4, 'one problem per cell that cannot fit');
  t.match(tight[0], {
    field: 'm.yaml: memory_budget_mb',
    value: 1500,
    message: /2368 MiB: 2 VMs x \(lab\.memory_mb 768 \+ 416 QEMU\)/,
    fix: /at least 2368/,
  });
  const high = structuredClone(DEFAULTS);
  high.lab.privateSubnet = '10.199.253.0/24';
  t.match(planProblems([{ cell: cells[0]!.cell, config: high }], 4, undefined, 'm.yaml', vmOverheadMb), [
    { field: 'm.yaml: parallel', message: /third octet/ },
  ]);
  const close = structuredClone(DEFAULTS);
  close.lab.managementSubnet = '10.199.2.0/24';
  t.match(planProblems([{ cell: cells[0]!.cell, config: close }], 3, undefined, 'm.yaml', vmOverheadMb), [
    { message: /overlap/ },
  ]);
  t.same(
    planProblems([{ cell: cells[0]!.cell, config: close }], 1, undefined, 'm.yaml', vmOverheadMb),
    [],
    'one at a time: no per-cell subnets',
  );
});

t.test(
  'the driver axis sets the task driver of its cell; docker on the default box is refused by the scenario',
  async (t) => {
    const cells = expandCells({
      scenarios: ['bridge-exec-reboot'],
      axes: [
        { name: 'driver', values: ['exec', 'docker'] },
        { name: 'box', values: ['nomad-reboot-harness/bookworm-docker'] },
      ],
    });
    t.same(
      cells.map((c) => c.name),
      [
        'bridge-exec-reboot/driver=exec/box=nomad-reboot-harness/bookworm-docker',
        'bridge-exec-reboot/driver=docker/box=nomad-reboot-harness/bookworm-docker',
      ],
    );
    const [exec, docker] = cells.map((c) => cellConfig(structuredClone(DEFAULTS), c, 0));
    t.equal(exec!.task.driver, 'exec');
    t.equal(docker!.task.driver, 'docker');
    t.equal(docker!.lab.box, 'nomad-reboot-harness/bookworm-docker');
    const bridge = findScenario('bridge-exec-reboot');
    t.same(bridge.validate!(docker!), [], 'docker with the Docker box: fine');
    const onDefault = cellConfig(
      structuredClone(DEFAULTS),
      expandCells({ scenarios: ['bridge-exec-reboot'], axes: [{ name: 'driver', values: ['docker'] }] })[0]!,
      0,
    );
    t.match(bridge.validate!(onDefault), [
      {
        field: '--driver',
        value: 'docker',
        message: /has none/,
        fix: /npm run harness -- setup --docker.*--box nomad-reboot-harness\/bookworm-docker/,
      },
    ]);
    for (const other of ['cni-ipam-reboot', 'upgrade-in-place']) {
      const c = structuredClone(docker!);
      c.upgradeTo = '/x/nomad';
      t.match(
        findScenario(other).validate!(c),
        [{ field: '--driver', value: 'docker', message: /bridge-exec-reboot only/ }],
        `${other} refuses docker`,
      );
    }
  },
);
