// Warm reruns, the pure half (lib/lab/warm/warm-key.ts): the snapshot key, the warm/cold decision, staleness and age; and
// the console's note on how a run got its lab (lib/report/console.ts).
import t from 'tap';
import {
  decideWarm,
  olderThan,
  staleReasons,
  warmAffinity,
  warmKey,
  warmLabId,
  warmLabSettings,
  type WarmInputs,
} from '../../lib/lab/warm/warm-key.js';
import { labNote } from '../../lib/report/console.js';
import { configOf } from '../helpers/config-sources.js';

const INPUTS: WarmInputs = {
  provider: 'libvirt',
  workDir: '/tmp/nomad-reboot-harness',
  box: 'nomad-reboot-harness/bookworm',
  boxId: '0 1234 5678',
  roles: ['server', 'client'],
  topology: '1+1',
  driver: 'qemu',
  cpus: 1,
  memoryMb: 768,
  tbCacheMb: 256,
  cpuModel: 'Nehalem',
  privateSubnet: '10.199.0.0/24',
  managementSubnet: '10.198.0.0/24',
  vagrantfile: 'v'.repeat(64),
  nomad: { sha256: 'a'.repeat(64), heartbeatGrace: '5m', templates: 't'.repeat(64) },
};

t.test('the key: 16 hex digits, the same for equal inputs whatever their order', async (t) => {
  const k = warmKey(INPUTS);
  t.match(k, /^[0-9a-f]{16}$/);
  const reordered = Object.fromEntries(Object.entries(INPUTS).reverse()) as unknown as WarmInputs;
  t.equal(warmKey(reordered), k, 'key order does not matter');
  t.equal(warmKey(structuredClone(INPUTS)), k, 'a copy has the same key');
  t.equal(warmLabId(k), `warm-${k}`);
});

t.test('the key changes with every input that shapes the VMs or what is installed on them', async (t) => {
  const k = warmKey(INPUTS);
  const changed: [string, WarmInputs][] = [
    ['build sha256', { ...INPUTS, nomad: { ...INPUTS.nomad!, sha256: 'b'.repeat(64) } }],
    ['heartbeat_grace', { ...INPUTS, nomad: { ...INPUTS.nomad!, heartbeatGrace: '10s' } }],
    ['agent templates', { ...INPUTS, nomad: { ...INPUTS.nomad!, templates: 'u'.repeat(64) } }],
    ['no Nomad (cni-ipam-reboot)', { ...INPUTS, nomad: undefined }],
    ['box', { ...INPUTS, box: 'other/box' }],
    ['box re-added', { ...INPUTS, boxId: '0 1234 9999' }],
    ['roles', { ...INPUTS, roles: ['client'] }],
    ['topology 1+2', { ...INPUTS, topology: '1+2' }],
    ['topology 3+2', { ...INPUTS, topology: '3+2' }],
    ['driver', { ...INPUTS, driver: 'kvm' }],
    ['cpus', { ...INPUTS, cpus: 2 }],
    ['memory', { ...INPUTS, memoryMb: 1024 }],
    ['tb cache', { ...INPUTS, tbCacheMb: 0 }],
    ['cpu model', { ...INPUTS, cpuModel: 'Haswell' }],
    ['private subnet', { ...INPUTS, privateSubnet: '10.197.0.0/24' }],
    ['management subnet', { ...INPUTS, managementSubnet: '10.196.0.0/24' }],
    ['Vagrantfile', { ...INPUTS, vagrantfile: 'w'.repeat(64) }],
    ['work dir', { ...INPUTS, workDir: '/var/tmp/labs' }],
  ];
  const keys = new Set([k]);
  for (const [what, inputs] of changed) {
    t.not(warmKey(inputs), k, what);
    keys.add(warmKey(inputs));
  }
  t.equal(keys.size, changed.length + 1, 'every change gives a key of its own');
});

t.test('the decision: cold, create, rebuild or reuse, each with its reason', async (t) => {
  const base = {
    warm: true,
    provider: 'libvirt',
    snapshots: true,
    keep: false,
    state: { kind: 'none' as const },
    nowMs: 100_000,
  };
  t.match(decideWarm({ ...base, warm: false }), { mode: 'cold', reason: /--fresh/ });
  t.match(decideWarm({ ...base, provider: 'virtualbox', snapshots: false }), {
    mode: 'cold',
    reason: 'lab.provider virtualbox cannot keep a warm lab: it has no snapshot/restore; this run goes cold',
  });
  t.match(decideWarm({ ...base, provider: 'ssh', snapshots: false }), { mode: 'cold', reason: /lab.provider ssh/ });
  t.match(decideWarm({ ...base, keep: true }), { mode: 'cold', reason: /--keep/ });
  t.match(decideWarm({ ...base, lockedBy: 'PID 42' }), {
    mode: 'cold',
    reason: /in use by PID 42; this run goes cold/,
  });
  t.same(decideWarm(base), { mode: 'create', reason: 'no snapshot for this key yet: a cold lab, then its snapshot' });
  t.match(decideWarm({ ...base, state: { kind: 'broken', why: 'its domain x is gone' } }), {
    mode: 'create',
    rebuild: 'its domain x is gone',
  });
  t.same(decideWarm({ ...base, state: { kind: 'ready', snapshotAtMs: 58_000 } }), {
    mode: 'reuse',
    reason: 'reverting to the snapshot taken 42 s ago',
    ageS: 42,
  });
  t.equal(
    (decideWarm({ ...base, state: { kind: 'ready', snapshotAtMs: 200_000 } }) as { ageS: number }).ageS,
    0,
    'a clock gone back is age 0, not negative',
  );
  t.match(
    decideWarm({ ...base, warm: false, lockedBy: 'PID 1', state: { kind: 'ready', snapshotAtMs: 0 } }),
    { mode: 'cold', reason: /--fresh/ },
    '--fresh wins over everything',
  );
});

t.test('stale: a changed or missing box, build, Vagrantfile or templates', async (t) => {
  const now = {
    boxId: INPUTS.boxId,
    buildSha256: INPUTS.nomad!.sha256,
    vagrantfile: INPUTS.vagrantfile,
    templates: INPUTS.nomad!.templates,
  };
  t.same(staleReasons(INPUTS, now), [], 'nothing changed: not stale');
  t.same(staleReasons(INPUTS, { ...now, buildSha256: 'missing' }), ['its Nomad build file is gone']);
  t.same(staleReasons(INPUTS, { ...now, buildSha256: 'c'.repeat(64) }), ['its Nomad build file changed']);
  t.same(staleReasons(INPUTS, { ...now, boxId: 'not added' }), [
    `box ${INPUTS.box} changed (0 1234 5678 -> not added)`,
  ]);
  t.same(staleReasons(INPUTS, { ...now, vagrantfile: 'x', templates: 'y' }), [
    'vms/Vagrantfile changed',
    'the agent templates changed',
  ]);
  const { buildSha256: _unused, ...noBuild } = now;
  t.same(
    staleReasons({ ...INPUTS, nomad: undefined }, { ...noBuild, templates: 'y' }),
    [],
    'a lab without Nomad ignores the build and templates',
  );
});

t.test('older than a duration', async (t) => {
  t.ok(olderThan(0, 60, 60_001));
  t.notOk(olderThan(0, 60, 60_000), 'exactly the duration is not older');
  t.notOk(olderThan(10_000, 3600, 20_000));
});

t.test('the console says how the run got its lab', async (t) => {
  t.equal(labNote({}), '', 'nothing for a run without the property (existing hosts, stand-ins)');
  t.equal(
    labNote({ 'lab.warm': 'yes', 'lab.snapshot.key': 'k1', 'lab.snapshot.age_s': '42' }),
    ' [warm lab k1, snapshot 42 s old]',
  );
  t.equal(
    labNote({
      'lab.warm': 'no (first run of this key)',
      'lab.snapshot.key': 'k1',
      'lab.snapshot.created': 'yes, in 9.0 s',
    }),
    ' [cold lab; snapshot k1 taken for the next run]',
  );
  t.equal(labNote({ 'lab.warm': 'no (lab.warm is off (--fresh))' }), ' [cold lab]');
});

t.test(
  "the pool's affinity is the key's inputs as the plan knows them: one list of lab settings for both",
  async (t) => {
    const cell = (flags: Record<string, unknown>, builds = [{ role: 'nomad' as const, spec: './n', cwd: '/w' }]) => ({
      config: configOf({ flags }),
      builds: builds.map((b) => ({ ...b, field: '--nomad' })),
    });
    const base = warmAffinity(cell({}));
    t.equal(warmAffinity(cell({})), base, 'equal cells, equal affinity');
    t.equal(warmAffinity(cell({ timeout: '2h' })), base, 'a setting that shapes no VM leaves it');
    t.not(warmAffinity(cell({ box: 'other/box' })), base, 'the box is a key input');
    t.not(warmAffinity(cell({ memory: 4096 })), base, 'the memory is');
    t.not(warmAffinity(cell({ clients: 2 })), base, 'the topology is');
    t.not(warmAffinity(cell({ 'heartbeat-grace': '17m' })), base, "a Nomad build's heartbeat_grace is");
    t.not(warmAffinity(cell({}, [{ role: 'nomad', spec: './m', cwd: '/w' }])), base, 'another build is');
    t.equal(
      warmAffinity(cell({ 'heartbeat-grace': '17m' }, [])),
      warmAffinity(cell({}, [])),
      'without a build, heartbeat_grace is not installed, so not part of it',
    );
    const keyFields = Object.keys(warmLabSettings(configOf({}).lab));
    t.ok(
      keyFields.every((k) => k in INPUTS),
      'every lab setting of the affinity is a key input',
    );
  },
);
