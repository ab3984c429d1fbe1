// Fault schedules (reboot.faults, lib/faults/schedule.ts): the file's shape and every problem at once, each step's own
// options parsed by its kind's fields, the seeded picks (the same seed, the same machines: a replay), the text a run
// records, and the refusals before anything exists (a step a provider or the config cannot do, a scenario that runs
// one fault only).
import t from 'tap';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { resolveConfig } from '../../lib/config/validate.js';
import { labConfigRules } from '../../lib/lab/providers.js';
import {
  parseSchedule,
  resolveSchedule,
  scheduleText,
  seeded,
  stepConfig,
  type FaultSchedule,
} from '../../lib/faults/schedule.js';
import { faultProblems, scheduleProblems } from '../../lib/steps/fault-step.js';
import type { HarnessConfig } from '../../lib/config/schema.js';

const config = (flags: Record<string, unknown>): HarnessConfig => {
  const r = resolveConfig({ file: undefined, env: {}, flags, knownChecks: [], labRules: labConfigRules });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
};

const STORY = {
  seed: 11,
  faults: [
    { fault: 'graceful', target: 'client-1', wait: '30s' },
    { fault: 'leader-partition', target: 'leader', partition_for: '20s' },
    { fault: 'link-flap', target: 'any-client', flap_count: 2 },
    { fault: 'power-loss-all', power_order: 'together' },
  ],
};

t.test('a schedule parses: kinds, targets, waits, and each step its own options by its kind', async (t) => {
  const r = parseSchedule(STORY, 'f.yaml');
  t.ok(r.ok);
  if (!r.ok) return;
  t.equal(r.schedule.seed, 11);
  t.same(r.schedule.steps, [
    { fault: 'graceful', target: { kind: 'machine', name: 'client-1' }, options: {}, waitS: 30 },
    { fault: 'leader-partition', target: { kind: 'leader' }, options: { partitionForS: 20 }, waitS: 0 },
    { fault: 'link-flap', target: { kind: 'pick', word: 'any-client' }, options: { flapCount: 2 }, waitS: 0 },
    { fault: 'power-loss-all', target: undefined, options: { powerOrder: 'together' }, waitS: 0 },
  ]);
});

t.test("a kind that reads another's option (leader-partition: partition_for) takes it in its step", async (t) => {
  const r = parseSchedule({ faults: [{ fault: 'leader-partition', partition_for: '45s' }] }, 'f.yaml');
  t.match(r, { ok: true, schedule: { steps: [{ options: { partitionForS: 45 } }] } });
  t.match(parseSchedule({ faults: [{ fault: 'graceful', partition_for: '45s' }] }, 'f.yaml'), {
    ok: false,
    problems: [{ message: 'is not a key of a graceful step', fix: 'use one of: fault, target, wait' }],
  });
});

t.test('every problem at once, each naming the file and the step', async (t) => {
  const r = parseSchedule(
    {
      seed: -1,
      extra: 1,
      faults: [
        { fault: 'meteor' },
        { fault: 'partition', target: 'client-x', wait: 'soon', off_for: '10s' },
        { fault: 'link-loss', loss_percent: 100 },
        'graceful',
      ],
    },
    'f.yaml',
  );
  t.equal(r.ok, false);
  if (r.ok) return;
  t.same(
    r.problems.map((p) => `${p.field}: ${p.message}`),
    [
      'f.yaml: extra: is not a key of a schedule',
      'f.yaml: seed: must be a whole number from 0 to 4294967295',
      'f.yaml: faults[0].fault: is not a fault kind',
      'f.yaml: faults[1].off_for: is not a key of a partition step',
      'f.yaml: faults[1].target: must be a machine name (client-2, server-1; client or server in a 1+1 lab), or one of leader, clients, servers, any-client or any-server',
      'f.yaml: faults[1].wait: must be a duration from 0s to 3600s',
      'f.yaml: faults[2].loss_percent: must be a whole number from 1 to 99 %',
      'f.yaml: faults[3]: must be a mapping with `fault:`',
    ],
  );
  t.match(r.problems[3], { fix: 'use one of: fault, target, wait, partition_for' });
  t.match(parseSchedule({ faults: [] }, 'f.yaml'), { ok: false, problems: [{ message: /a list of 1 to 20 faults/ }] });
  t.match(parseSchedule('faults', 'f.yaml'), { ok: false, problems: [{ message: /must be a mapping/ }] });
});

t.test('the seed decides the picks: the same seed replays them, others differ', async (t) => {
  const r = parseSchedule(
    { faults: Array.from({ length: 8 }, () => ({ fault: 'graceful', target: 'any-client' })) },
    'f.yaml',
  );
  if (!r.ok) throw new Error('parse');
  const topo = { servers: 3 as const, clients: 5 };
  const picks = (seed: number) => {
    const res = resolveSchedule(r.schedule, topo, seed, { kind: 'clients' });
    if (!res.ok) throw new Error('resolve');
    return res.steps.map((s) => (s.target.kind === 'machine' ? s.target.name : s.target.kind));
  };
  t.same(picks(42), picks(42), 'a replay');
  t.notSame(picks(42), picks(43), 'another seed, other picks');
  t.ok(
    picks(42).every((n) => /^client-[1-5]$/.test(n)),
    'only clients of the lab',
  );
  t.ok(new Set(picks(7)).size > 1, 'not one machine every time');
  const g = seeded(1);
  const first = [g(), g(), g()];
  t.ok(
    first.every((x) => x >= 0 && x < 1),
    'within [0, 1)',
  );
  const g2 = seeded(1);
  t.same([g2(), g2(), g2()], first);
});

t.test('targets are checked on the topology; an absent one is the run’s; the text a run records', async (t) => {
  const r = parseSchedule(STORY, 'f.yaml');
  if (!r.ok) throw new Error('parse');
  const res = resolveSchedule(r.schedule, { servers: 3, clients: 2 }, 11, { kind: 'clients' });
  t.ok(res.ok);
  if (!res.ok) return;
  const text = scheduleText(res.steps);
  t.match(
    text,
    /^1\. graceful on client-1 \(as written\); then wait 30s\n2\. leader-partition on leader \(as written\) partitionForS=20\n/,
  );
  t.match(text, /\n3\. link-flap on client-[12] \(any-client, seed 11\) flapCount=2\n/);
  t.match(text, /\n4\. power-loss-all on clients \(the run’s target\) powerOrder=together$/);
  const small: FaultSchedule = {
    seed: undefined,
    steps: [{ fault: 'graceful', target: { kind: 'machine', name: 'client-3' }, options: {}, waitS: 0 }],
  };
  t.match(resolveSchedule(small, { servers: 1, clients: 2 }, 1, { kind: 'clients' }), {
    ok: false,
    problems: [{ field: 'faults[0].target', value: 'client-3' }],
  });
});

t.test("a step's config: the run's, with the step's kind and its own options", async (t) => {
  const c = config({ 'partition-for': '30s' });
  const s = stepConfig(c, { fault: 'partition', options: { partitionForS: 90 } });
  t.equal(s.reboot.kind, 'partition');
  t.equal(s.reboot.partitionForS, 90);
  t.equal(c.reboot.partitionForS, 30, 'the run config is left as it was');
});

t.test('refused before anything exists: a step the lab or the config cannot do, a one-fault scenario', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'faults.yaml');
  writeFileSync(
    file,
    'faults:\n  - { fault: graceful, target: client-1 }\n  - { fault: docker-restart, target: client-2 }\n  - { fault: leader-partition, target: leader }\n',
  );
  const c = config({ faults: file, clients: '2' });
  t.same(
    scheduleProblems('rolling-reboot', c, { hasNomadAgent: true }).map((p) => `${p.field}: ${p.message}`),
    [
      `${file}: faults[1] --reboot (reboot.kind): cannot be done here: docker-restart needs docker tasks under the daemon, and task.driver is exec`,
      `${file}: faults[2] --reboot (reboot.kind): cannot be done here: leader-partition needs the other servers to keep a quorum without the leader; lab.servers is 1`,
    ],
  );
  t.same(
    scheduleProblems(
      'rolling-reboot',
      config({ faults: file, clients: '2', servers: '3', driver: 'docker', box: 'nrh/debian12-docker' }),
      { hasNomadAgent: true },
    ),
    [],
  );
  t.match(faultProblems('bridge-exec-reboot', c, { hasNomadAgent: true }), [
    {
      field: '--faults (reboot.faults)',
      message: 'bridge-exec-reboot runs one fault; a schedule of several is run by the cluster scenarios',
    },
  ]);
  t.same(faultProblems('rolling-reboot', c, { hasNomadAgent: true, runsSchedules: true }), []);
  t.match(
    scheduleProblems('rolling-reboot', config({ faults: path.join(dir, 'none.yaml') }), { hasNomadAgent: true }),
    [{ field: '--faults (reboot.faults)', message: /cannot be read: ENOENT/ }],
  );
  writeFileSync(file, 'faults:\n  - { fault: graceful, target: client-4 }\n');
  t.match(scheduleProblems('rolling-reboot', config({ faults: file, clients: '2' }), { hasNomadAgent: true }), [
    { field: `${file}: faults[0].target`, value: 'client-4' },
  ]);
});

t.test(
  'a step that does not parse hides no other step: its kind and target problems come in the same exit 2',
  async (t) => {
    const file = path.join(t.testdir({}), 'f.yaml');
    writeFileSync(
      file,
      'faults:\n  - { fault: leader-partition, target: leader }\n  - { fault: graceful, wait: 5x }\n  - { fault: graceful, target: client-9 }\n',
    );
    t.same(
      scheduleProblems('server-reboot', config({ faults: file }), { hasNomadAgent: true, defaultRole: 'server' }).map(
        (p) => p.field,
      ),
      [`${file}: faults[0] --reboot (reboot.kind)`, `${file}: faults[1].wait`, `${file}: faults[2].target`],
      'the 1-server lab cannot partition its leader, a wait that is no duration, a machine the lab lacks: in file order',
    );
    const r = parseSchedule(
      { faults: [{ fault: 'graceful', target: 'client-', wait: '5x' }, { fault: 'bogus' }, { fault: 'hard' }] },
      'f.yaml',
    );
    t.match(
      r,
      { ok: false, parsed: { steps: [undefined, undefined, { fault: 'hard' }] } },
      'a step whose kind or target is wrong is a hole; the step that parsed is kept',
    );
    // one step with problems of two layers: its wait does not parse, its target is not in the lab
    writeFileSync(file, 'faults:\n  - { fault: graceful, target: client-9, wait: 5x }\n');
    t.same(
      scheduleProblems('rolling-reboot', config({ faults: file }), { hasNomadAgent: true }).map((p) => p.field),
      [`${file}: faults[0].wait`, `${file}: faults[0].target`],
      'the wait and the target of one step in one exit 2',
    );
    writeFileSync(file, 'faults:\n  - { fault: leader-partition, target: leader, partition_for: abc }\n');
    t.same(
      scheduleProblems('server-reboot', config({ faults: file }), { hasNomadAgent: true, defaultRole: 'server' }).map(
        (p) => p.field,
      ),
      [`${file}: faults[0].partition_for`, `${file}: faults[0] --reboot (reboot.kind)`],
      'an option that does not parse and a kind the 1-server lab cannot do',
    );
    const kept = parseSchedule({ faults: [{ fault: 'partition', partition_for: 'abc', wait: '10s' }] }, 'f.yaml');
    t.match(kept, { ok: false, parsed: { steps: [{ fault: 'partition', options: {}, waitS: 10 }] } });
    t.match(
      parseSchedule({ faults: [{ fault: 'graceful', target: ['client-1'] }] }, 'f.yaml'),
      { ok: false, problems: [{ field: 'f.yaml: faults[0].target', message: /not a list/ }] },
      'a one-element list is no target (it was taken as client-1)',
    );
  },
);

t.test(
  'a step whose kind is wrong still has its target judged: in the lab, and by the scenario’s own rule',
  async (t) => {
    const { default: serverReboot } = await import('../../scenarios/server-reboot.js');
    const file = path.join(t.testdir({}), 'f.yaml');
    writeFileSync(file, 'faults:\n  - { fault: bogus, target: client-9 }\n');
    t.same(
      scheduleProblems('rolling-reboot', config({ faults: file }), { hasNomadAgent: true }).map((p) => p.field),
      [`${file}: faults[0].fault`, `${file}: faults[0].target`],
      'the kind that is none and the machine the 1+1 lab lacks, in one exit 2',
    );
    t.match(
      parseSchedule({ faults: [{ fault: 'bogus', target: 'client-9' }] }, 'f.yaml'),
      { ok: false, parsed: { steps: [undefined], targets: [{ kind: 'machine', name: 'client-9' }] } },
      'the hole keeps its written target',
    );
    writeFileSync(file, 'faults:\n  - { fault: [graceful], target: client }\n');
    t.same(
      serverReboot.validate!(config({ faults: file })).map((p) => `${p.field}: ${p.message}`),
      [
        `${file}: faults[0].fault: is not a fault kind`,
        `${file}: faults[0] --target (reboot.target): server-reboot reboots servers`,
      ],
      'server-reboot refuses the client target of a step whose kind is wrong',
    );
  },
);

t.test('server-reboot words its step rules as the shared ones and keeps the file’s order', async (t) => {
  const { default: serverReboot } = await import('../../scenarios/server-reboot.js');
  const file = path.join(t.testdir({}), 'f.yaml');
  writeFileSync(
    file,
    'faults:\n  - { fault: power-loss-all }\n  - { fault: graceful, wait: 5x }\n  - { fault: leader-partition, target: leader }\n',
  );
  const problems = serverReboot.validate!(config({ faults: file }));
  t.same(
    problems.map((p) => p.field),
    [
      `${file}: faults[0] --reboot (reboot.kind)`,
      `${file}: faults[1].wait`,
      `${file}: faults[2] --reboot (reboot.kind)`,
    ],
    'by step, each field worded flag first',
  );
  const offered = problems[2]!.fix;
  t.match(offered, /use one of: graceful, hard/);
  t.notMatch(offered, /power-loss-all/, 'the fix leaves out a kind server-reboot refuses (a fault of the whole lab)');
  t.notMatch(offered, /docker-restart/, 'and one aimed at clients only');
});

t.test(
  'a schedule that is not UTF-8 is refused with its encoding, not read with a replacement character',
  async (t) => {
    const file = path.join(t.testdir({}), 'f.yaml');
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('faults:\n  - { fault: graceful, target: "any-cli'),
        Buffer.from([0xe9]),
        Buffer.from('nt" }\n'),
      ]),
    );
    t.same(
      scheduleProblems('rolling-reboot', config({ faults: file }), { hasNomadAgent: true }).map((p) => [
        p.field,
        p.message,
      ]),
      [
        [
          '--faults (reboot.faults)',
          'is not UTF-8 text (line 2: byte 0xe9 is no UTF-8; a Latin-1 or Windows-1252 file?)',
        ],
      ],
    );
    writeFileSync(file, '# caf\xe9\nfaults:\n  - { fault: graceful }\n', 'latin1');
    t.match(scheduleProblems('rolling-reboot', config({ faults: file }), { hasNomadAgent: true }), [
      { message: /line 1: byte 0xe9/, fix: `save it as UTF-8, e.g. iconv -f latin1 -t utf-8 ${file}` },
    ]);
  },
);

t.test('a step whose kind is wrong still has its keys read: against every kind’s options', async (t) => {
  const r = parseSchedule(
    { faults: [{ fault: 'bogus', target: 'client', trget: 'client-2', off_for: 'zz', partition_for: '20s' }, {}] },
    'f.yaml',
  );
  t.equal(r.ok, false);
  if (r.ok) return;
  t.same(
    r.problems.map((p) => `${p.field}: ${p.message}`),
    [
      'f.yaml: faults[0].fault: is not a fault kind',
      'f.yaml: faults[0].trget: is not a key of any fault step',
      `f.yaml: faults[0].off_for: ${r.problems[2]!.message}`,
      'f.yaml: faults[1].fault: is required',
    ],
    'the unknown key and the bad value in the same exit 2 as the kind; a partition_for that parses is no problem',
  );
  t.match(r.problems[2]!.message, /duration/);
  t.match(r.problems[1]!.fix, /use one of: fault, target, wait, .*off_for.*partition_for/);
});

t.test('server-reboot offers only the kinds it takes: for a wrong kind and in its own step rule', async (t) => {
  const { default: serverReboot } = await import('../../scenarios/server-reboot.js');
  const file = path.join(t.testdir({}), 'f.yaml');
  writeFileSync(file, 'faults:\n  - { fault: bogus }\n  - { fault: docker-restart, target: server-1 }\n');
  const problems = serverReboot.validate!(config({ faults: file, servers: '3' }));
  const kindFix = problems.find((p) => p.field === `${file}: faults[0].fault`)?.fix ?? '';
  t.match(kindFix, /^use one of: graceful, /);
  t.notMatch(kindFix, /power-loss-all|docker-restart|agent-kill/, 'no kind server-reboot refuses');
  const rule = problems.find((p) => p.message === 'server-reboot reboots the server host')?.fix ?? '';
  t.match(rule, /^give one of graceful/);
  t.notMatch(rule, /power-loss-all/, 'its own rule leaves out the fault of the whole lab it refuses');
  const rolling = scheduleProblems('rolling-reboot', config({ faults: file, servers: '3' }), { hasNomadAgent: true });
  t.match(
    rolling.find((p) => p.field === `${file}: faults[0].fault`)?.fix,
    /power-loss-all/,
    'rolling-reboot takes it',
  );
});

t.test('a client’s fault aimed at a server is refused before anything exists (Q154)', async (t) => {
  for (const kind of ['executor-kill', 'agent-kill', 'partition', 'link-flap', 'link-loss']) {
    const c = config({ reboot: kind, target: 'server', clients: '1' });
    t.match(
      faultProblems('rolling-reboot', c, { hasNomadAgent: true, runsSchedules: true }),
      [
        {
          field: '--reboot (reboot.kind)',
          message: new RegExp(`^${kind} is aimed at client machines; the target server is a server`),
        },
      ],
      kind,
    );
  }
  t.same(
    faultProblems('rolling-reboot', config({ reboot: 'graceful', target: 'server' }), { hasNomadAgent: true }),
    [],
  );
  const file = path.join(t.testdir({}), 'f.yaml');
  writeFileSync(file, 'faults:\n  - { fault: executor-kill, target: any-server }\n  - { fault: executor-kill }\n');
  t.same(
    scheduleProblems('rolling-reboot', config({ faults: file, servers: '3' }), { hasNomadAgent: true }).map(
      (p) => p.field,
    ),
    [`${file}: faults[0] --reboot (reboot.kind)`],
    'a step at any-server is refused; one at the run’s target (a client) is not',
  );
});

t.test('server-reboot: a server-only kind at a client names the target, not the scenario (Q155)', async (t) => {
  const { default: serverReboot } = await import('../../scenarios/server-reboot.js');
  const file = path.join(t.testdir({}), 'f.yaml');
  writeFileSync(file, 'faults:\n  - { fault: leader-partition, target: client }\n');
  const aimed = serverReboot.validate!(config({ faults: file, servers: '3' })).find((p) =>
    /is aimed at/.test(p.message),
  );
  t.match(aimed, { message: /the target client is a client$/, fix: 'aim it at a server: leader, servers or server-N' });
});
