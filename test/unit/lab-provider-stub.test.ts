// Adding a lab provider is one folder implementing LabProvider and one registry line: a stub provider defined here,
// put in a registry with the shipped ones, has its own config rules and capabilities asked as the CLI asks them
// (labConfigRulesOf), performs the kinds of its performer map and no other, and the map's type refuses a claimed
// kind without a performer. A provider that declares snapshot/restore (`snapshots`) gets warm labs through the same
// code as libvirt (lib/lab/warm/warm-lab.ts openWarm), here with fake functions that record their calls; one without
// it is refused lab.warm while the config is resolved.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULTS, type HarnessConfig, type ProviderName } from '../../lib/config/schema.js';
import type { ConfigAt } from '../../lib/config/validate.js';
import { HarnessError } from '../../lib/errors.js';
import type { RebootKind } from '../../lib/model/kinds.js';
import { perform, performedKinds, type FaultTarget, type Performers } from '../../lib/lab/perform.js';
import type { Lab } from '../../lib/model/lab.js';
import type { LabContext, LabProvider } from '../../lib/lab/provider.js';
import type { SnapshotMachines, WarmTeardown } from '../../lib/lab/warm/snapshots.js';
import { openWarm } from '../../lib/lab/warm/warm-lab.js';
import { labConfigRulesOf, PROVIDERS, providerRegistry } from '../../lib/lab/providers.js';
import { deadlineIn } from '../../lib/time/deadlines.js';

// ---- the stub: what lib/lab/<provider>/ would hold ----
const record = (kind: RebootKind) => async (ft: FaultTarget) => ({
  machine: ft.machine.name,
  kind,
  bootIdBefore: 'boot-1',
  bootIdAfter: 'boot-2',
  requestedAt: 1,
  backAt: 2,
});
const STUB_PERFORMERS: Performers<'graceful' | 'panic'> = { graceful: record('graceful'), panic: record('panic') };
const STUB: LabProvider<'stub'> = {
  name: 'stub',
  capabilities: {
    faults: performedKinds(STUB_PERFORMERS),
    lacks: () => ({ 'power-reset': { reason: 'a stub has no power', fix: 'use libvirt' } }),
    concurrentUp: true,
  },
  host: {
    workDir: false,
    netns: 'hosts',
    orphanDomains: false,
    libvirtDriver: false,
    doctor: { checks: false, fix: 'nothing to check' },
    machinesFromConfig: true,
  },
  validateConfig: (config, at) =>
    config.lab.memoryMb > 1024
      ? [{ field: `${at.file}: lab.memory_mb`, value: config.lab.memoryMb, message: 'too big for a stub', fix: 'less' }]
      : [],
  validate: () => [],
  up: async () => {
    throw new Error('a stub brings nothing up');
  },
};

// ---- a stub with snapshot/restore: what lib/lab/<provider>/ would hold to get warm labs ----
/** What the fake machines were asked, in order, and what they answer. */
interface Recorder {
  calls: string[];
  /** what `missing` answers (undefined: every machine has the snapshot) */
  missing?: string;
  /** a guest's clock behind the host by this many seconds after a restore */
  lagS: number;
}
/** A lab of one fake machine whose commands answer like a guest's shell. */
function fakeLab(r: Recorder, id: string): Lab {
  const machine = {
    name: `${id}-client`,
    role: 'client',
    exec: async (cmd: string) => {
      r.calls.push(`exec ${cmd.split(' ')[0]}`);
      const stdout = cmd.startsWith('before=') ? `${(Date.now() / 1000 - r.lagS).toFixed(3)}\n` : '';
      return { code: 0, stdout, stderr: '', durationMs: 0 };
    },
    bootId: async () => 'boot-1',
    disconnect: async () => void r.calls.push('disconnect'),
  };
  return {
    id,
    machines: { client: machine },
    reboot: async () => {
      throw new Error('not in this test');
    },
    collectEvidence: async () => ({}),
    describe: () => id,
    destroy: async () => {},
  } as unknown as Lab;
}
/** The provider's snapshot/restore of a warm lab's machines: fake functions recording each call. */
const fakeMachines = (r: Recorder, at: { id: string; dir: string }): SnapshotMachines => {
  const registered = (teardown: WarmTeardown) => {
    r.calls.push(`register ${teardown.what.replace(at.id, '<id>').split(' (')[0]}`);
    r.teardown = () => teardown.fn(async () => void r.calls.push('destroy'));
  };
  return {
    missing: async (name) => (r.calls.push(`missing ${name}`), r.missing),
    up: async (teardown) => (registered(teardown), r.calls.push('up'), fakeLab(r, at.id)),
    attach: async (teardown) => (registered(teardown), r.calls.push('attach'), fakeLab(r, at.id)),
    restore: async (name) => void r.calls.push(`restore ${name}`),
    take: async (name) => void r.calls.push(`take ${name}`),
    drop: async () => void r.calls.push('drop'),
    park: async () => void r.calls.push('park'),
    remove: async () => void r.calls.push('remove'),
  };
};
interface Recorder {
  /** the run's end as the provider registered it */
  teardown?: () => Promise<void>;
}
const WARM_STUB: LabProvider<'warm-stub'> = {
  ...(STUB as unknown as LabProvider<'warm-stub'>),
  name: 'warm-stub',
  snapshots: { machines: fakeMachines },
  // its up asks the warm-lab code, as the libvirt provider's does (lib/lab/vagrant/vagrant-provider.ts)
  async up(topology, ctx, d) {
    const recorder = (ctx as LabContext & { recorder: Recorder }).recorder;
    const warm = await openWarm(
      {
        config: ctx.config,
        provider: { name: 'warm-stub', snapshots: { machines: fakeMachines } },
        context: recorder,
        inputs: { topology: `${topology.servers}+${topology.clients}`, image: 'stub-1' },
        logger: ctx.logger,
        cleanup: ctx.cleanup,
      },
      d,
    );
    if ('cold' in warm) throw new Error(`went cold: ${warm.cold}`);
    return { lab: warm.lab, warm, agentAddress: async () => '10.0.0.2' };
  },
};

// ---- and the one registry line (lib/lab/providers.ts SHIPPED) ----
const REGISTRY = providerRegistry<string>([...PROVIDERS.providers, STUB, WARM_STUB]);

const at: ConfigAt = {
  file: 'harness.yaml',
  roles: ['server', 'client'],
  givenBy: () => undefined,
  refused: () => false,
};
const configOf = (over: { kind?: RebootKind; memoryMb?: number }): HarnessConfig => ({
  ...DEFAULTS,
  lab: { ...DEFAULTS.lab, provider: 'stub' as ProviderName, memoryMb: over.memoryMb ?? 768 },
  reboot: { ...DEFAULTS.reboot, kind: over.kind ?? 'graceful' },
});

t.test('the registry has it, once, after the shipped providers', async (t) => {
  t.same(
    REGISTRY.providers.map((p) => p.name),
    ['libvirt', 'virtualbox', 'ssh', 'stub', 'warm-stub'],
  );
  t.equal(REGISTRY.get('stub'), STUB);
  t.throws(() => providerRegistry([...REGISTRY.providers, STUB]), /stub is registered twice/);
  t.throws(() => REGISTRY.get('cloud'), /no lab provider "cloud"/);
});

t.test('its config rules and its capabilities are asked while the config is resolved', async (t) => {
  const rules = labConfigRulesOf(REGISTRY);
  t.same(rules(configOf({}), at), [], 'graceful, a small lab: nothing to say');
  t.same(rules(configOf({ memoryMb: 2048 }), at), [
    { field: 'harness.yaml: lab.memory_mb', value: 2048, message: 'too big for a stub', fix: 'less' },
  ]);
  t.same(rules(configOf({ kind: 'hard' }), at), [
    {
      field: '--reboot (reboot.kind)',
      value: 'hard',
      message: 'cannot be done here: lab.provider stub cannot do hard: a stub has no power',
      fix: 'use libvirt, or use one of: graceful, panic',
    },
  ]);
  t.match(rules(configOf({ kind: 'partition' }), at), [
    { message: 'cannot be done here: lab.provider stub cannot do partition: it has no performer for it' },
  ]);
});

t.test('its lab performs the kinds of its map and refuses any other', async (t) => {
  const target: FaultTarget = {
    machine: {
      name: 'client',
      exec: async () => ({ code: 0, stdout: '', stderr: '', durationMs: 0 }),
      bootId: async () => 'b',
      disconnect: async () => {},
    },
    serverAddresses: async () => [],
    peerAddresses: async () => [],
    rebootOptions: (_k, o) => ({ deadline: o.deadline }),
  };
  const o = { deadline: deadlineIn(1000), fault: {} };
  t.match(await perform(STUB_PERFORMERS, 'stub', 'panic', target, o), { machine: 'client', kind: 'panic' });
  await t.rejects(perform(STUB_PERFORMERS, 'stub', 'hard', target, o), HarnessError);
  await t.rejects(perform(STUB_PERFORMERS, 'stub', 'hard', target, o), {
    message: 'hard: lab.provider stub does not perform it',
  });
  t.same(STUB.capabilities.faults, ['graceful', 'panic'], 'the claim is the map');
  // A claimed kind without a performer does not compile (tsc checks the tests):
  // @ts-expect-error: 'panic' is claimed and has no performer
  const missing: Performers<'graceful' | 'panic'> = { graceful: record('graceful') };
  t.ok(missing);
});

t.test('lab.warm given for a provider without snapshot/restore is a config problem; with it, none', async (t) => {
  const rules = labConfigRulesOf(REGISTRY);
  const warmAt: ConfigAt = { ...at, givenBy: (k) => (k === 'lab.warm' ? 'harness.yaml: lab.warm' : undefined) };
  const problem = {
    field: 'harness.yaml: lab.warm',
    value: true,
    message: 'lab.provider stub cannot keep a warm lab: it has no snapshot/restore',
    fix: 'leave lab.warm out or set it false (a cold lab each run), or use lab.provider libvirt or warm-stub',
  };
  t.same(rules(configOf({}), warmAt), [problem]);
  t.same(rules(configOf({}), at), [], 'the default (warm when the provider can) is no problem');
  const cold = configOf({});
  t.same(rules({ ...cold, lab: { ...cold.lab, warm: false } }, warmAt), [], 'lab.warm false is none');
  const warmStub = { ...cold, lab: { ...cold.lab, provider: 'warm-stub' as ProviderName } };
  t.same(rules(warmStub, warmAt), [], 'a provider with snapshots is asked nothing');
  const ssh = { ...cold, lab: { ...cold.lab, provider: 'ssh' as ProviderName } };
  t.same(
    labConfigRulesOf(PROVIDERS)(ssh, warmAt)
      .filter((p) => p.field.endsWith('lab.warm'))
      .map((p) => p.message),
    ['lab.provider ssh cannot keep a warm lab: it has no snapshot/restore'],
    'the shipped ssh provider: the same problem, with its own about lab.hosts',
  );
  t.same(
    PROVIDERS.providers.filter((p) => p.snapshots).map((p) => p.name),
    ['libvirt'],
    'of the shipped providers, libvirt has snapshot/restore',
  );
});

t.test('a provider with snapshot/restore gets a warm lab through the warm-lab code, with no VM', async (t) => {
  const work = t.testdir({});
  const recorder: Recorder = { calls: [], lagS: 7 };
  const cleanups: (() => Promise<void>)[] = [];
  const config = { ...DEFAULTS, lab: { ...DEFAULTS.lab, provider: 'warm-stub' as ProviderName, workDir: work } };
  const ctx = {
    runId: 'r1',
    config,
    logger: () => {},
    roles: ['client'],
    needsNomad: false,
    cleanup: (_what: string, fn: () => Promise<void>) => void cleanups.push(fn),
    evidence: () => {},
    fact: () => {},
    info: () => {},
    recorder,
  } as LabContext & { recorder: Recorder };
  const topology = { servers: 1, clients: 1 } as const;
  const endRun = async () => {
    await recorder.teardown?.();
    for (const fn of cleanups.reverse()) await fn();
    cleanups.length = 0;
    recorder.teardown = undefined;
  };

  // First run of the key: a cold lab, the snapshot taken once prepared, parked at the end.
  const first = await REGISTRY.get('warm-stub').up(topology, ctx, deadlineIn(10_000));
  t.equal(first.warm?.decision.mode, 'create');
  const dir = join(work, `warm-${first.warm!.key}`);
  t.equal(first.warm?.dir, dir);
  t.match(JSON.parse(readFileSync(join(dir, 'warm.json'), 'utf8')), { inputs: { image: 'stub-1', topology: '1+1' } });
  t.ok(existsSync(join(work, `warm-${first.warm!.key}.lock`)), 'the key is locked while the run has it');
  await first.warm!.snapshot(deadlineIn(1000));
  await endRun();
  t.same(recorder.calls, ['register park the warm lab <id>', 'up', 'disconnect', 'take nrh-warm', 'park']);
  t.notOk(existsSync(join(work, `warm-${first.warm!.key}.lock`)), 'released at the end');

  // The next run: the snapshot is there, so the lab is restored and the guest's clock set.
  recorder.calls = [];
  const second = await REGISTRY.get('warm-stub').up(topology, ctx, deadlineIn(10_000));
  t.equal(second.warm?.decision.mode, 'reuse');
  t.equal(second.warm?.key, first.warm?.key, 'same inputs, same key');
  t.ok(Math.abs(second.warm!.clockSkewS['client']! - 7) <= 1, 'the clock lag is measured');
  t.equal(await second.warm!.snapshot(deadlineIn(1000)), 0, 'a restored lab takes no new snapshot');
  await endRun();
  t.same(recorder.calls, [
    'missing nrh-warm',
    'register park the warm lab <id>',
    'attach',
    'restore nrh-warm',
    'exec true',
    'exec before=$(date',
    'park',
  ]);

  // A machine lost its snapshot: rebuilt cold; a run that never takes the snapshot drops it and destroys the lab.
  recorder.calls = [];
  recorder.missing = 'its machine warm-x-client is gone';
  const third = await REGISTRY.get('warm-stub').up(topology, ctx, deadlineIn(10_000));
  t.match(third.warm?.decision, { mode: 'create', rebuild: 'its machine warm-x-client is gone' });
  await endRun();
  t.same(recorder.calls, ['missing nrh-warm', 'remove', 'register park the warm lab <id>', 'up', 'drop', 'destroy']);
});
