// main(argv, deps) for commands that run no scenario: output, exit codes, and nothing created on a usage error.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { probe } from '../helpers/cli-probe.js';
import { main } from '../../lib/cli/main.js';
import { newRunId } from '../../lib/cli/session-command.js';
import { SCENARIOS } from '../../lib/cli/scenarios.js';
import { FIELDS } from '../../lib/config/table.js';
import type { HarnessConfig } from '../../lib/config/schema.js';

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

t.test('list, list --json', async (t) => {
  const p = probe(t.testdir());
  t.equal(await main(['list'], p.deps), 0);
  for (const s of SCENARIOS) {
    t.match(p.out(), s.name);
    for (const c of s.checks) t.match(p.out(), `- ${c.id}: `, `${s.name} lists ${c.id}`);
  }
  t.match(p.out(), 'bridge-exec-reboot (needs --nomad <build>)');
  // which jobs each takes: yours on the Nomad reboot scenarios (the job types each judges), its own elsewhere
  t.match(
    p.out(),
    /bridge-exec-reboot [^\n]*\n[^\n]*\n {2}jobs: its shipped job, or yours with --job: service jobs with bridge-mode groups, host-mode groups[^\n]*not system, batch, sysbatch/,
  );
  for (const name of ['rolling-reboot', 'server-reboot'])
    t.match(
      p.out(),
      new RegExp(
        `${name} [^\\n]*\\n[^\\n]*\\n  jobs: its shipped job, or yours with --job: service \\(bridge or host networking\\), system, sysbatch and batch jobs`,
      ),
    );
  t.match(p.out(), /upgrade-in-place [^\n]*\n[^\n]*\n {2}jobs: its own \(it refuses --job\)/);
  const j = probe(t.testdir());
  t.equal(await main(['list', '--json'], j.deps), 0);
  const { schema, scenarios: doc } = JSON.parse(j.out()) as {
    schema: string;
    scenarios: { name: string; needsNomad: boolean; jobs?: string; checks: { id: string }[] }[];
  };
  t.equal(schema, 'nomad-reboot-harness/scenarios@1', 'one document with its schema id, not a bare list (N36)');
  t.match(doc.find((s) => s.name === 'rolling-reboot')?.jobs, /system, sysbatch and batch jobs/);
  t.equal(doc.find((s) => s.name === 'cni-ipam-reboot')?.jobs, undefined, 'no --job there');
  t.same(
    doc.map((s) => s.name),
    SCENARIOS.map((s) => s.name),
  );
  t.same(
    doc[0]!.checks.map((c) => c.id),
    SCENARIOS[0]!.checks.map((c) => c.id),
  );
  t.equal(j.err(), '');
  t.same([...p.effects, ...j.effects], []);
});

t.test('--help, run --help, --version', async (t) => {
  const p = probe(t.testdir());
  t.equal(await main(['--help'], p.deps), 0);
  t.match(p.out(), /Commands:[\s\S]*run[\s\S]*destroy/);
  const r = probe(t.testdir());
  t.equal(await main(['run', '--help'], r.deps), 0, 'help wins over a missing --nomad-binary');
  for (const f of FIELDS) if (f.flag) t.match(r.out(), `--${f.flag}`);
  const v = probe(t.testdir());
  t.equal(await main(['--version'], v.deps), 0);
  t.equal(v.out(), `reboot-harness ${version}\n`);
  t.same([...p.effects, ...r.effects, ...v.effects], []);
});

t.test('run without a Nomad build: exit 2, the fix on stderr, nothing created', async (t) => {
  const p = probe(t.testdir());
  t.equal(await main(['run'], p.deps), 2);
  t.match(
    p.err(),
    /^error: invalid configuration: --nomad: scenario bridge-exec-reboot installs Nomad and needs a build/,
  );
  t.match(p.err(), 'NOMAD_BUILD');
  t.match(p.err(), 'release version (1.9.7, latest), git:<dir>[@<ref>] or the path');
  t.equal(p.out(), '');
  t.same(p.effects, [], 'not even the binary check or host preparation ran');
});

t.test('--reboots on a scenario that reboots once: exit 2 naming the flag, nothing created', async (t) => {
  const p = probe(t.testdir());
  t.equal(await main(['run', 'cni-ipam-reboot', '--reboots', '3'], p.deps), 2);
  t.match(
    p.err(),
    /--reboots: applies to bridge-exec-reboot only; cni-ipam-reboot reboots the client once \(got 3; fix: drop --reboots/,
  );
  t.notOk(p.effects.includes('prepareHost'), 'the lab host was not touched');
});

t.test('--target, --rolling, --drain on a scenario that hits its one client itself: exit 2, all at once', async (t) => {
  const p = probe(t.testdir());
  const argv = ['run', 'bridge-exec-reboot', '--nomad-binary', './nomad', '--target', 'leader', '--rolling', '--drain'];
  t.equal(await main(argv, p.deps), 2);
  for (const flag of ['--target', '--rolling', '--drain'])
    t.match(
      p.err(),
      new RegExp(`reboot\\.\\w+ \\(${flag}\\): applies to rolling-reboot and server-reboot; bridge-exec-reboot`),
    );
  t.notOk(p.effects.includes('prepareHost'), 'the lab host was not touched');
});

t.test('run of an unknown scenario lists the scenarios', async (t) => {
  const p = probe(t.testdir());
  t.equal(await main(['run', 'nope', '--nomad-binary', './nomad'], p.deps), 2);
  t.match(
    p.err(),
    /scenario: is not a known scenario \(got "nope"; fix: use one of: bridge-exec-reboot, cni-ipam-reboot/,
  );
  t.same(p.effects, []);
});

t.test(
  'usage errors: unknown command, unknown flag, two scenarios, bad --expect, --quiet with --verbose',
  async (t) => {
    const cases: [string[], RegExp][] = [
      [['rnu'], /command: is not a command \(got "rnu"/],
      [['run', '--bogus'], /--bogus/],
      [['run', 'bridge-exec-reboot', 'cni-ipam-reboot', '--nomad-binary', './n'], /only one scenario/],
      [['run', 'cni-ipam-reboot', '--expect', 'no-duplicate-ip=fail'], /names no check of scenario cni-ipam-reboot/],
      [['run', '--nomad-binary', './n', '--quiet', '--verbose'], /--quiet\/--verbose/],
      [['doctor', '--memory', 'lots'], /--memory: must be a whole number/],
    ];
    for (const [argv, re] of cases) {
      const p = probe(t.testdir());
      t.equal(await main(argv, p.deps), 2, argv.join(' '));
      t.match(p.err(), re, argv.join(' '));
      t.same(
        p.effects.filter((e) => e !== 'checkBinary'),
        [],
        `${argv.join(' ')}: nothing created (builds are checked to report every problem)`,
      );
    }
  },
);

t.test(
  "defect: an expectation naming another scenario's check is refused with or without the scenario named",
  async (t) => {
    for (const argv of [
      ['run', '--nomad-binary', './n', '--expect', 'state-migrated=fail'],
      ['run', 'bridge-exec-reboot', '--nomad-binary', './n', '--expect', 'state-migrated=fail'],
    ]) {
      const p = probe(t.testdir());
      t.equal(await main(argv, p.deps), 2, argv.join(' '));
      t.match(p.err(), /--expect: names no check of scenario bridge-exec-reboot/);
      t.same(
        p.effects.filter((e) => e !== 'checkBinary'),
        [],
      );
    }
  },
);

t.test("defect: --reboots -1 is a config problem naming the flag, not the parser's raw message", async (t) => {
  const p = probe(t.testdir());
  t.equal(await main(['run', '--nomad-binary', './n', '--reboots', '-1'], p.deps), 2);
  t.match(p.err(), /--reboots: must be a whole number from 1 to 20 \(got "-1"/);
  t.notMatch(p.err(), /ambiguous|To specify an option argument/);
});

t.test('harness.yaml: invalid YAML and unknown keys are exit 2; all problems at once', async (t) => {
  const broken = t.testdir({ 'harness.yaml': 'lab:\n  cpus: [1, 2\n' });
  const p = probe(broken);
  t.equal(await main(['run', '--nomad-binary', './n'], p.deps), 2);
  t.match(p.err(), /harness\.yaml: is not valid YAML/);
  t.same(
    p.effects.filter((e) => e !== 'checkBinary'),
    [],
    'nothing created (the build is checked with the rest)',
  );

  const unknown = t.testdir({ 'harness.yaml': 'lab:\n  memory: 1024\ntimout: 30m\nreboot:\n  kind: soft\n' });
  const u = probe(unknown);
  t.equal(await main(['run', '--nomad-binary', './n'], u.deps), 2);
  t.match(u.err(), /3 problems/);
  t.match(u.err(), /lab\.memory: is not a known key .*did you mean "lab\.memory_mb"/);
  t.match(u.err(), /timout: is not a known key .*did you mean "timeout"/);
  t.match(
    u.err(),
    /reboot\.kind: must be one of graceful, hard, panic, power-off, power-loss-all, agent-kill, .*, link-loss \(got "soft"/,
  );
  t.same(
    u.effects.filter((e) => e !== 'checkBinary'),
    [],
    'nothing created (the build is checked to report every problem)',
  );

  // a key of the lab's, which destroy reads (a key only run reads, such as keep, is left to run)
  const dir = t.testdir({ 'other.yaml': 'lab:\n  servers: 2\n' });
  const c = probe(dir);
  t.equal(
    await main(['destroy', 'r1', '--config', 'other.yaml'], c.deps),
    2,
    '--config is read relative to the working directory',
  );
  t.match(c.err(), /other\.yaml: lab\.servers: must be one of 1, 3, 5/);
  const missing = probe(t.testdir());
  t.equal(await main(['destroy', 'r1', '-c', 'nope.yaml'], missing.deps), 2);
  t.match(missing.err(), /--config: cannot be read \(ENOENT\)/);
  t.same([...c.effects, ...missing.effects], []);
});

t.test('a valid harness.yaml in the working directory is used', async (t) => {
  const p = probe(t.testdir({ 'harness.yaml': 'lab:\n  work_dir: /tmp/from-yaml\n' }));
  t.equal(await main(['destroy', 'r1', 'r2'], p.deps), 0);
  t.same(p.effects, ['destroy r1,r2']);
  t.equal(p.configs[0]!.lab.workDir, '/tmp/from-yaml');
});

t.test('destroy needs run ids, --all or --host', async (t) => {
  const p = probe(t.testdir());
  t.equal(await main(['destroy'], p.deps), 2);
  t.match(p.err(), /run id: is required/);
  t.same(p.effects, []);
  const a = probe(t.testdir());
  t.equal(await main(['destroy', '--all'], a.deps), 0);
  t.same(a.effects, ['destroy  --all']);
});

t.test('a command this build lacks is a usage error, not a crash', async (t) => {
  const p = probe(t.testdir());
  t.equal(await main(['doctor'], p.deps), 2);
  t.match(p.err(), /doctor is not available/);
});

t.test('doctor refuses a provider it has no checks for, instead of checking libvirt and saying ok', async (t) => {
  const hosts =
    'lab:\n  hosts:\n    server: {address: h1, user: u, key: k}\n    client: {address: h2, user: u, key: k}\n';
  for (const provider of ['virtualbox', 'ssh']) {
    let ran = false;
    const files: Record<string, string> = provider === 'ssh' ? { 'harness.yaml': hosts } : {};
    const doctor = async (): Promise<0> => {
      ran = true;
      return 0;
    };
    const p = probe(t.testdir(files), {}, { doctor });
    t.equal(await main(['doctor', '--provider', provider], p.deps), 2, provider);
    t.match(
      p.err(),
      new RegExp(`lab\\.provider \\(--provider\\): doctor checks a libvirt host .*no checks for ${provider}`),
    );
    t.notOk(ran, 'no check ran');
  }
  const ok = probe(t.testdir(), {}, { doctor: async () => 0 });
  t.equal(await main(['doctor', '--provider', 'libvirt'], ok.deps), 0);
});

t.test('an unexpected error is an internal error (70), redacted', async (t) => {
  const token = 'e7c1d2a4-0000-4000-8000-123456789abc';
  const p = probe(
    t.testdir(),
    { NOMAD_TOKEN: token },
    {
      destroy: async () => {
        throw new TypeError(`boom with ${token}`);
      },
    },
  );
  t.equal(await main(['destroy', 'r1'], p.deps), 70);
  t.match(p.err(), /^internal error \(please report\): TypeError: boom with \[REDACTED\]/);
  t.notMatch(p.err(), token);
});

t.test('the env token is redacted even in a usage error', async (t) => {
  const token = 'tok-5f0e1c9a77d2';
  const p = probe(t.testdir(), { NOMAD_TOKEN: token });
  t.equal(await main(['run', token], p.deps), 2);
  t.match(p.err(), 'is not a known scenario');
  t.notMatch(p.err(), token);
});

t.test('newRunId: short, distinct, safe in VM names and paths', async (t) => {
  const ids = new Set(Array.from({ length: 200 }, newRunId));
  t.equal(ids.size, 200);
  for (const id of ids) t.match(id, /^r[0-9a-z]{5}[0-9a-f]{8}$/);
});

t.test('setup passes --force and --docker on as what setup-host.ts rebuilds and builds', async (t) => {
  const seen: { force: boolean; docker: boolean; config?: unknown }[] = [];
  const p = probe(t.testdir({}), {}, { setup: async (o) => (seen.push(o), 0) });
  t.equal(await main(['setup'], p.deps), 0);
  t.equal(await main(['setup', '--force', '--docker'], p.deps), 0);
  t.same(
    seen.map(({ force, docker }) => ({ force, docker })),
    [
      { force: false, docker: false },
      { force: true, docker: true },
    ],
  );
  t.match(seen[0]!.config, { lab: { netns: 'nrh-lab' } }, 'the config says where the lab host goes');
  t.equal(await main(['setup', '--help'], p.deps), 0);
  t.match(p.out(), /setup \[--force\] \[--docker\][^]*bookworm-docker/);
});

t.test(
  'destroy --warm / --stale / --older-than reach destroy as a sweep; a bad duration is a usage error',
  async (t) => {
    const sweeps: unknown[] = [];
    const p = probe(
      t.testdir(),
      {},
      { destroy: async (_c, ids, all, _l, host, sweep) => (sweeps.push({ ids, all, host, sweep }), 0) },
    );
    t.equal(await main(['destroy', '--warm'], p.deps), 0);
    t.equal(await main(['destroy', '--stale', '--older-than', '24h'], p.deps), 0);
    t.equal(await main(['destroy', '--all', '--host'], p.deps), 0);
    t.same(sweeps, [
      { ids: [], all: false, host: false, sweep: { warm: true } },
      { ids: [], all: false, host: false, sweep: { stale: true, olderThanS: 86400 } },
      { ids: [], all: true, host: true, sweep: {} },
    ]);
    t.equal(await main(['destroy', '--older-than', 'tomorrow'], p.deps), 2);
    t.match(p.err(), /--older-than: must be a Go duration with a unit \(got "tomorrow"/);
    t.equal(sweeps.length, 3, 'nothing destroyed on a bad duration');
    t.equal(await main(['destroy'], p.deps), 2, 'nothing to destroy named');
    t.match(p.err(), /--warm, --stale, --older-than <duration>/);
  },
);

t.test('--fresh turns warm reruns off; lab.warm and HARNESS_WARM are keys like any other', async (t) => {
  const { resolveConfig } = await import('../../lib/config/validate.js');
  const base = { file: undefined, knownChecks: [] };
  t.equal(
    (resolveConfig({ ...base, env: {}, flags: {} }) as { config: HarnessConfig }).config.lab.warm,
    true,
    'warm by default',
  );
  t.equal(
    (resolveConfig({ ...base, env: {}, flags: { fresh: true } }) as { config: HarnessConfig }).config.lab.warm,
    false,
  );
  t.equal(
    (resolveConfig({ ...base, env: { HARNESS_WARM: '0' }, flags: {} }) as { config: HarnessConfig }).config.lab.warm,
    false,
  );
  t.equal(
    (
      resolveConfig({
        ...base,
        file: { lab: { warm: false } },
        env: { HARNESS_WARM: '1' },
        flags: { fresh: true },
      }) as { config: HarnessConfig }
    ).config.lab.warm,
    false,
    '--fresh wins',
  );
  const bad = resolveConfig({ ...base, env: { HARNESS_WARM: 'maybe' }, flags: {} });
  t.match(bad, { ok: false, problems: [{ field: 'env HARNESS_WARM', value: 'maybe' }] });
});

t.test('a topology that does not fit, or is no topology, is exit 2 before anything exists', async (t) => {
  const facts = { hostFacts: async () => ({ memAvailableMb: 4000 }) };
  const p = probe(t.testdir(), {}, facts);
  t.equal(await main(['run', 'cni-ipam-reboot', '--clients', '4', '--fresh'], p.deps), 2);
  t.match(
    p.err(),
    /lab\.servers \+ lab\.clients, lab\.memory_mb: the lab needs 4736 MiB \(4 VMs x \(768 MiB lab\.memory_mb/,
  );
  t.match(p.err(), /this host has 4000 MiB available \(MemAvailable\)/);
  t.match(p.err(), /run fewer machines \(--servers\/--clients: 3 VM\(s\) of this size fit\)/);
  t.same(p.effects, [], 'nothing prepared, no lab made');
  const fits = probe(t.testdir(), {}, facts);
  t.equal(await main(['run', 'cni-ipam-reboot', '--clients', '3', '--plan'], fits.deps), 0, 'three clients fit');
  const bad = probe(t.testdir(), {}, facts);
  t.equal(await main(['run', 'cni-ipam-reboot', '--servers', '2', '--clients', '9'], bad.deps), 2);
  t.match(bad.err(), /--servers: must be one of 1, 3, 5/);
  t.match(bad.err(), /--clients: must be a whole number from 1 to 8/);
  t.same(bad.effects, []);
});
