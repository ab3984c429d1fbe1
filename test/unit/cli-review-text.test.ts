// The words of small input problems the 2026-12-06 CLI review found wrong or missing (docs/cli-defects.md): each
// message says what is actually wrong, with a fix that works, and nothing from a file is echoed raw.
import t from 'tap';
import { bool } from '../../lib/config/fields.js';
import { goDuration } from '../../lib/config/durations.js';
import { netnsName } from '../../lib/config/network-fields.js';
import { resolveConfig } from '../../lib/config/validate.js';
import { ConfigError, formatProblem } from '../../lib/errors.js';
import { diskItem, driverItem } from '../../lib/cli/doctor.js';
import { detectAccel, toolDown } from '../../lib/cli/doctor-host.js';
import { pathProblem } from '../../lib/cli/paths.js';
import { renderLabs } from '../../lib/cli/labs.js';
import { FIELDS } from '../../lib/config/table.js';
import { labConfigRules } from '../../lib/lab/providers.js';

const problemsOf = (o: { file?: unknown; flags?: Record<string, unknown>; env?: Record<string, string> }) => {
  const r = resolveConfig({
    file: o.file,
    env: o.env ?? {},
    flags: o.flags ?? {},
    knownChecks: [],
    labRules: labConfigRules,
  });
  return r.ok ? [] : r.problems;
};
const text = (ps: ReturnType<typeof problemsOf>) => new ConfigError(ps).message;

t.test('a negative duration is "must be positive", not "needs a unit" (N26)', async (t) => {
  t.match(goDuration('-1h'), { ok: false, message: 'must be positive' });
  t.match(goDuration('1'), { ok: false, message: 'must be a Go duration with a unit' });
});

t.test('a namespace name that is too long says so (N28, H13)', async (t) => {
  const long = 'abcdefghijklmnopqrstuvwxyz0123456789';
  t.match(netnsName(long), { ok: false, message: /at most 32 characters \(this one has 36\)/ });
  t.match(netnsName('a b'), { ok: false, message: /letters, digits, - _ \.; at most 32 characters/ });
});

t.test('a boolean names every spelling it takes (H14)', async (t) => {
  t.match(bool('off'), { ok: false, message: 'must be true or false (also yes/no, 1/0)' });
  t.equal(bool('0').ok, true);
});

t.test("--management-subnet's fix suggests the management default, not the private one (old 6)", async (t) => {
  const m = text(problemsOf({ flags: { 'management-subnet': '10.0.0.0/8' } }));
  t.match(m, /--management-subnet: must be a private IPv4 \/24 network .*fix: write e\.g\. "10\.198\.0\.0\/24"/);
  t.match(text(problemsOf({ flags: { 'private-subnet': 'x' } })), /fix: write e\.g\. "10\.199\.0\.0\/24"/);
});

t.test('an empty nomad.token is shown as "", not as a secret (N43)', async (t) => {
  t.match(text(problemsOf({ file: { nomad: { token: '' } } })), /nomad\.token: must be a non-empty string \(got ""/);
  t.notMatch(text(problemsOf({ file: { nomad: { token: 7 } } })), /got 7/, 'a value that is set stays hidden');
});

t.test('a key with control characters is escaped like the value (N20)', async (t) => {
  const line = formatProblem({ field: '\u001b]0;pwned\u0007 \u202elab', value: '\u001b[31m', message: 'm', fix: 'f' });
  t.notMatch(line, /[\u0000-\u001f\u202e]/, 'no control or bidi character reaches the terminal');
  t.match(line, /\\u001b\]0;pwned\\u0007 \\u202elab: m \(got "\\u001b\[31m"/);
});

t.test('doctor: a tool that ran and failed is not "not found" (old 16)', async (t) => {
  t.equal(
    toolDown('qemu-system-x86_64', { code: 97, out: 'shim: qemu refused\n' }),
    'qemu-system-x86_64 --version failed (exit 97: shim: qemu refused)',
  );
  t.equal(
    toolDown('qemu-system-x86_64', { code: -1, out: 'spawn qemu-system-x86_64 ENOENT' }),
    'qemu-system-x86_64 not found',
  );
});

t.test('fixes point at places that exist (H3, H4)', async (t) => {
  const ps = problemsOf({ file: 'scalar', flags: {} });
  t.notMatch(text(ps), /README section/);
  t.match(text(problemsOf({ file: { lab: { cpuz: 2 } } })), /see docs\/config\.md/);
  const driver = FIELDS.find((f) => f.yaml === 'task.driver')!;
  t.match(driver.doc, /npm run harness -- setup --docker/);
});

t.test("ssh hosts missing: the provider's real source is named, and no file that was never read (N21)", async (t) => {
  const m = text(problemsOf({ flags: { provider: 'ssh' } }));
  t.match(
    m,
    /harness\.yaml \(none read\): lab\.hosts\.servers: is required with lab\.provider: ssh \(set by --provider\)/,
  );
  const env = text(problemsOf({ env: { HARNESS_PROVIDER: 'ssh' } }));
  t.match(env, /\(set by env HARNESS_PROVIDER\)/);
});

t.test("doctor's free disk refuses the work dir a run refuses (N35)", async (t) => {
  const i = await diskItem('/proc/x');
  t.equal(i.ok, false);
  t.match(JSON.stringify(i), /\/proc\/x cannot be made: \/proc is on proc, a kernel file system/);
});

t.test('--junit /dev/stdout: "a stream, not a file", with a fix (N41)', async (t) => {
  for (const v of ['/dev/stdout', '/proc/self/fd/1'])
    t.match(await pathProblem({ field: '--junit', value: v, kind: 'file' }, '/'), {
      message: 'is a stream, not a file: a report is written as a file',
      fix: /--json/,
    });
});

t.test(
  'list-labs: no labs, orphans not looked at, says so instead of "no orphan domains" (N25, second half)',
  async (t) => {
    t.equal(renderLabs([], '/w', false), 'no labs under /w; orphan domains: not looked at (see the warning)');
    t.equal(renderLabs([], '/w'), 'no labs under /w and no orphan domains');
  },
);

t.test('doctor: libvirt driver kvm where KVM only runs PVM guests is a failure (N15)', async (t) => {
  const accel = detectAccel('flags : vmx', true, ['kvm_pvm']);
  const o = {
    setting: 'kvm' as const,
    choose: async () => ({ driver: 'kvm' as const, source: 'config', reason: 'lab.libvirt_driver says so' }),
  };
  const i = await driverItem(
    o as never,
    'b',
    { at: Number.POSITIVE_INFINITY, signal: new AbortController().signal },
    accel,
  );
  t.equal(i.ok, false);
  t.match(
    i.detail,
    /kvm_pvm is loaded: \/dev\/kvm exists but only runs PVM guest kernels, so the box cannot boot with kvm/,
  );
  const fine = await driverItem(
    o as never,
    'b',
    { at: Number.POSITIVE_INFINITY, signal: new AbortController().signal },
    detectAccel('flags : vmx', true, []),
  );
  t.equal(fine.ok, true);
});
