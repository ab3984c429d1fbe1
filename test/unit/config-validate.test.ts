// resolveConfig: precedence defaults < harness.yaml < env < flags, every problem at once, named with its fix.
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { ConfigError, formatProblem, type ConfigProblem } from '../../lib/errors.js';
import { DEFAULTS, type HarnessConfig } from '../../lib/config/schema.js';
import { resolveConfig, type ConfigSources } from '../../lib/config/validate.js';
import { formerIds } from '../../lib/checks/expect-ids.js';
import { CHECKS as REBOOT } from '../../scenarios/bridge-exec-reboot.js';
import { CHECKS as CNI } from '../../scenarios/cni-ipam-reboot.js';

const KNOWN = REBOOT.map((c) => c.id);

function ok(src: Partial<ConfigSources>): HarnessConfig {
  const r = resolveConfig({ file: undefined, env: {}, flags: {}, knownChecks: KNOWN, ...src });
  if (!r.ok) throw new Error(`expected a valid config, got:\n${r.problems.map(formatProblem).join('\n')}`);
  return r.config;
}
function bad(src: Partial<ConfigSources>): ConfigProblem[] {
  const r = resolveConfig({ file: undefined, env: {}, flags: {}, knownChecks: KNOWN, ...src });
  if (r.ok) throw new Error(`expected problems, got a config: ${JSON.stringify(r.config)}`);
  return r.problems;
}
const yaml = (s: string) => parseYaml(s) as unknown;

t.test('nothing given: the defaults', async (t) => {
  t.same(ok({}), DEFAULTS);
  t.same(ok({ file: null }), DEFAULTS, 'an empty harness.yaml parses to null');
  const c = ok({});
  c.lab.cpus = 9;
  t.equal(DEFAULTS.lab.cpus, 1, 'the defaults are not shared with a result');
});

t.test('precedence: defaults < harness.yaml < env < flags', async (t) => {
  const file = yaml('timeout: 1h30m\nlab:\n  box: file/box\n  cpus: 2\nnomad:\n  heartbeat_grace: 1m30s\n');
  const env = { HARNESS_TIMEOUT: '600', HARNESS_BOX: 'env/box' };
  const flags = { timeout: '45m' };
  t.equal(ok({ file }).timeoutS, 5400, 'file over default');
  t.equal(ok({ file, env }).timeoutS, 600, 'env over file');
  t.equal(ok({ file, env, flags }).timeoutS, 2700, 'flag over env');
  const all = ok({ file, env, flags: { ...flags, box: 'flag/box' } });
  t.equal(all.lab.box, 'flag/box');
  t.equal(all.lab.cpus, 2, 'untouched by env and flags');
  t.equal(all.nomad.heartbeatGrace, '1m30s');
  t.equal(all.lab.memoryMb, DEFAULTS.lab.memoryMb, 'unset stays default');
  t.equal(ok({ file, env: { HARNESS_BOX: '' } }).lab.box, 'file/box', 'an empty env var counts as unset');
  t.equal(ok({ env: { NOMAD_BINARY: './nomad' } }).nomadBinary, './nomad');
  t.equal(ok({ env: { HARNESS_KEEP: 'yes' } }).keep, true);
  t.equal(ok({ env: { HARNESS_KEEP: '1' }, flags: { keep: false } }).keep, false, 'a flag can turn an env bool off');
  t.equal(ok({ env: { NOMAD_TOKEN: 's3cr3t-token' } }).nomad.token, 's3cr3t-token');
});

t.test('every problem at once, each naming where, the value and the fix', async (t) => {
  const p = bad({
    file: yaml('lab:\n  cpus: 0\n  private_subnet: 172.16.0.0/24\nreboot:\n  kind: soft\n'),
    fileName: 'ci/harness.yaml',
    env: { HARNESS_PROVIDER: 'hyperv' },
    flags: { timeout: 'soon', memory: '12' },
  });
  t.same(
    p.map((x) => x.field).sort(),
    [
      '--memory',
      '--timeout',
      'ci/harness.yaml: lab.cpus',
      'ci/harness.yaml: lab.private_subnet',
      'ci/harness.yaml: reboot.kind',
      'env HARNESS_PROVIDER',
    ].sort(),
  );
  const byField = Object.fromEntries(p.map((x) => [x.field, x]));
  t.match(byField['env HARNESS_PROVIDER'], { value: 'hyperv', fix: /libvirt, virtualbox/ });
  t.match(byField['ci/harness.yaml: reboot.kind'], { value: 'soft', fix: /graceful, hard/ });
  t.match(byField['--timeout'], { value: 'soon', fix: /1h/ });
  for (const x of p) t.ok(x.fix.length > 0 && x.message.length > 0, `${x.field} has a message and a fix`);
  const err = new ConfigError(p);
  t.equal(err.exitCode, 2);
  t.match(err.message, /6 problems/);
  t.match(err.message, '--timeout: must be a duration from 10s to 21600s (got "soon"; fix: write e.g. "1h" or "3600")');
});

t.test('a bad file value is reported even when a flag overrides it', async (t) => {
  const p = bad({ file: { lab: { cpus: 'lots' } }, flags: { cpus: '2' } });
  t.same(
    p.map((x) => x.field),
    ['harness.yaml: lab.cpus'],
  );
});

t.test('unknown yaml keys are errors with a "did you mean"', async (t) => {
  const p = bad({
    file: yaml(
      'timout: 30m\nlab:\n  memory: 1024\n  cpu: 2\nheartbeat_grace: 5m\nnomad_bianry: ./nomad\nreports:\n  junit: x.xml\n  colour: red\nlabb:\n  cpus: 2\n',
    ),
    fileName: 'h.yaml',
  });
  const fixes = Object.fromEntries(p.map((x) => [x.field, x.fix]));
  t.match(fixes, {
    'h.yaml: timout': /did you mean "timeout"/,
    'h.yaml: lab.memory': /did you mean "lab.memory_mb"/,
    'h.yaml: lab.cpu': /did you mean "lab.cpus"/,
    'h.yaml: heartbeat_grace': /did you mean "nomad.heartbeat_grace"/,
    'h.yaml: nomad_bianry': /did you mean "nomad_binary"/,
    'h.yaml: labb': /did you mean "lab"/,
  });
  t.match(fixes['h.yaml: reports.colour'], /^remove it/, 'nothing close: remove it');
  t.equal(p.length, 7);
  for (const x of p) t.equal(x.message, 'is not a known key');
});

t.test('a section given as a scalar says it must be a mapping', async (t) => {
  const [p, ...rest] = bad({ file: { lab: 5 } });
  t.equal(rest.length, 0);
  t.match(p, { field: 'harness.yaml: lab', value: 5, message: /mapping/, fix: /lab\.cpus/ });
});

t.test('a non-mapping YAML document is rejected', async (t) => {
  for (const doc of ['- a\n- b\n', 'just text\n', '42\n']) {
    const p = bad({ file: yaml(doc), fileName: 'x.yaml' });
    t.equal(p.length, 1, JSON.stringify(doc));
    t.match(p[0], { field: 'x.yaml', message: /YAML mapping/ });
  }
});

t.test('--expect on the command line', async (t) => {
  t.equal(ok({ flags: { expect: ['fail'] } }).expect.scenario, 'fail');
  t.equal(ok({ flags: { expect: ['pass'] } }).expect.scenario, 'pass');
  t.equal(ok({ flags: { expect: 'fail' } }).expect.scenario, 'fail', 'a single string');
  const c = ok({ flags: { expect: ['no-duplicate-ip=fail', 'unique-ips=pass'] } });
  t.same(c.expect, { scenario: undefined, perCheck: { 'no-duplicate-ip': 'fail', 'unique-ips': 'pass' } });
  t.equal(ok({}).expect.scenario, undefined, 'no expectation by default');

  const p = bad({ flags: { expect: ['no-such-check=fail', 'maybe', 'alloc-restored=broken'] } });
  t.equal(p.length, 3, 'all three reported');
  t.match(p[0], { field: '--expect', value: 'no-such-check=fail', message: /names no check/, fix: /no-duplicate-ip/ });
  t.match(p[1], { field: '--expect', value: 'maybe' });
  t.match(p[2], { field: '--expect', value: 'alloc-restored=broken' });
});

t.test('expect in harness.yaml', async (t) => {
  t.equal(ok({ file: yaml('expect: fail\n') }).expect.scenario, 'fail');
  const c = ok({
    file: yaml('expect:\n  scenario: fail\n  checks:\n    no-duplicate-ip: fail\n    alloc-restored: pass\n'),
  });
  t.same(c.expect, { scenario: 'fail', perCheck: { 'no-duplicate-ip': 'fail', 'alloc-restored': 'pass' } });
  const both = ok({
    file: yaml('expect:\n  scenario: fail\n  checks:\n    no-duplicate-ip: fail\n'),
    flags: { expect: ['pass', 'no-duplicate-ip=pass'] },
  });
  t.same(both.expect, { scenario: 'pass', perCheck: { 'no-duplicate-ip': 'pass' } }, 'flags win over the file');

  const p = bad({
    file: yaml('expect:\n  scenario: maybe\n  checks:\n    nope: fail\n    unique-ips: 3\n  sceanrio: fail\n'),
    fileName: 'h.yaml',
  });
  const fields = p.map((x) => x.field).sort();
  t.same(
    fields,
    [
      'h.yaml: expect.checks.nope',
      'h.yaml: expect.checks.unique-ips',
      'h.yaml: expect.scenario',
      'h.yaml: expect.sceanrio',
    ].sort(),
    'each problem names its yaml key',
  );
  t.match(
    p.find((x) => x.field === 'h.yaml: expect.sceanrio'),
    { fix: /did you mean "expect.scenario"/ },
  );
  t.match(bad({ file: { expect: { checks: 'fail' } } })[0], {
    field: 'harness.yaml: expect.checks',
    message: /mapping of check id/,
  });
  t.match(bad({ file: { expect: ['fail'] } })[0], { field: 'harness.yaml: expect' });
});

t.test('--quiet with --verbose is rejected; each alone is fine', async (t) => {
  t.match(bad({ flags: { quiet: true, verbose: true } }), [{ field: '--quiet/--verbose', fix: /choose one/ }]);
  t.match(
    bad({ file: { output: { quiet: true } }, flags: { verbose: true } }),
    [{ field: '--quiet/--verbose' }],
    'also across sources',
  );
  t.equal(ok({ flags: { quiet: true } }).output.quiet, true);
  t.equal(ok({ flags: { verbose: true } }).output.verbose, true);
});

t.test('typed values land where the config says', async (t) => {
  const c = ok({
    file: yaml(
      'lab:\n  memory_mb: 1024\n  private_subnet: 192.168.50.0/24\n  netns: ""\nreports:\n  artifacts: always\n  junit: out/j.xml\nreboot:\n  kind: hard\ntimeout: 900\n',
    ),
  });
  t.equal(c.lab.memoryMb, 1024);
  t.equal(c.lab.privateSubnet, '192.168.50.0/24');
  t.equal(c.lab.netns, '', '"" selects the host network');
  t.equal(c.reports.artifacts, 'always');
  t.equal(c.reports.junit, 'out/j.xml');
  t.equal(c.reboot.kind, 'hard');
  t.equal(c.timeoutS, 900, 'plain seconds');
});

t.test('a bad token is never echoed back', async (t) => {
  const p = bad({ file: { nomad: { token: 1234567890 } } });
  t.equal(p.length, 1);
  t.equal(p[0]!.field, 'harness.yaml: nomad.token');
  t.notMatch(formatProblem(p[0]!), /1234567890/);
});

t.test('an unknown check names the scenario it was checked against', async (t) => {
  const cni = { scenario: 'cni-ipam-reboot', knownChecks: CNI.map((c) => c.id), formerChecks: formerIds(CNI) };
  const [p] = bad({ ...cni, flags: { expect: ['no-duplicate-ip=fail'] } });
  t.match(p, { message: 'names no check of scenario cni-ipam-reboot', fix: /host-rebooted/ });
  t.notMatch(p!.fix, /client-rebooted/, 'an old id is taken but not suggested');
  t.same(
    ok({ ...cni, flags: { expect: ['client-rebooted=fail'] } }).expect.perCheck,
    { 'client-rebooted': 'fail' },
    'taken as given; the planner moves it to host-rebooted',
  );
  t.equal(ok({ scenario: 'cni-ipam-reboot' }).scenario, 'cni-ipam-reboot');
});

t.test('the private and management networks must differ', async (t) => {
  t.match(bad({ flags: { 'private-subnet': '10.198.0.0/24' } }), [
    { field: 'lab.private_subnet/lab.management_subnet', value: '10.198.0.0/24', fix: /10\.199\.0\.0\/24/ },
  ]);
  t.equal(ok({ flags: { 'private-subnet': '10.197.0.0/24' } }).lab.privateSubnet, '10.197.0.0/24');
});

t.test('an empty HARNESS_NETNS selects the host network; an empty variable elsewhere is unset', async (t) => {
  const { resolveConfig } = await import('../../lib/config/validate.js');
  const r = resolveConfig({ file: undefined, env: { HARNESS_NETNS: '', HARNESS_BOX: '' }, flags: {}, knownChecks: [] });
  t.ok(r.ok);
  if (r.ok) {
    t.equal(r.config.lab.netns, '');
    t.equal(r.config.lab.box, 'nomad-reboot-harness/bookworm', 'HARNESS_BOX="" leaves the default');
  }
});

t.test('--nomad and its older name --nomad-binary: either works; both must agree', async (t) => {
  const base = { file: undefined, env: {}, knownChecks: [] };
  const one = resolveConfig({ ...base, flags: { 'nomad-binary': './n' } });
  t.equal(one.ok && one.config.nomadBinary, './n');
  const both = resolveConfig({ ...base, flags: { nomad: '1.9.7', 'nomad-binary': './n' } });
  t.notOk(both.ok);
  t.match(!both.ok && both.problems, [
    { field: '--nomad-binary / --nomad', message: 'name the same setting with different values' },
  ]);
  t.ok(resolveConfig({ ...base, flags: { nomad: './n', 'nomad-binary': './n' } }).ok, 'the same value twice is fine');
});
