// Adding a lab provider is one folder implementing LabProvider and one registry line: a stub provider defined here,
// put in a registry with the shipped ones, has its own config rules and capabilities asked as the CLI asks them
// (labConfigRulesOf), performs the kinds of its performer map and no other, and the map's type refuses a claimed
// kind without a performer.
import t from 'tap';
import { DEFAULTS, type HarnessConfig, type ProviderName } from '../../lib/config/schema.js';
import type { ConfigAt } from '../../lib/config/validate.js';
import { HarnessError } from '../../lib/errors.js';
import type { RebootKind } from '../../lib/model/kinds.js';
import { perform, performedKinds, type FaultTarget, type Performers } from '../../lib/lab/perform.js';
import type { LabProvider } from '../../lib/lab/provider.js';
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
    snapshot: false,
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
// ---- and the one registry line (lib/lab/providers.ts SHIPPED) ----
const REGISTRY = providerRegistry<string>([...PROVIDERS.providers, STUB]);

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
    ['libvirt', 'virtualbox', 'ssh', 'stub'],
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
