// The CLI against what a new user (or a careless one) types: secrets in URLs, output paths that cannot be written,
// repeated and unused flags, value checks; every case answered before anything is created, with exit 2.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { type Probe, probe } from '../helpers/cli-probe.js';
import { ERROR_JSON_SCHEMA, main } from '../../lib/cli/main.js';
import { makeDirs } from '../../lib/report/write.js';

const created = (p: Probe) => p.effects.filter((e) => e !== 'checkBinary');

t.test('credentials in a URL: exit 2 saying they are not supported, the secret never shown', async (t) => {
  const url = 'http://user:SECRET@127.0.0.1:59999/';
  for (const argv of [
    ['build', '1.9.7', '--releases-url', url],
    ['run', '--nomad', './n', '--releases-url', url],
    ['run', '--nomad', './n', '--releases-url', 'https://SECRETTOKEN@mirror.example/'],
  ]) {
    const p = probe(t.testdir());
    t.equal(await main(argv, p.deps), 2, argv.join(' '));
    t.match(p.err(), /--releases-url: must not carry credentials \(user:password@ in the URL is not supported\)/);
    t.match(p.err(), /fix: drop them from the URL: the releases site is fetched without authentication/);
    t.notMatch(p.out() + p.err(), 'SECRET', 'the secret is nowhere');
    t.match(p.err(), '[REDACTED]@');
    t.same(created(p), []);
  }
  const e = probe(t.testdir(), { NOMAD_RELEASES_URL: url });
  t.equal(await main(['build', '1.9.7'], e.deps), 2, 'from the environment too');
  t.match(e.err(), /env NOMAD_RELEASES_URL: must not carry credentials/);
  t.notMatch(e.err(), 'SECRET');
});

t.test('output paths that cannot be written: exit 2 naming each flag, before anything is created', async (t) => {
  const dir = t.testdir({ afile: 'x', adir: {} });
  const p = probe(dir);
  const argv = [
    'run',
    '--nomad',
    './n',
    '--reports-dir',
    'afile',
    '--junit',
    'adir',
    '--work-dir',
    '/etc/passwd',
    '--report-json',
    'afile/sub/summary.json',
  ];
  t.equal(await main(argv, p.deps), 2);
  t.match(p.err(), /4 problems/);
  t.match(p.err(), /--reports-dir: is a file, not a directory \(got "afile"/);
  t.match(p.err(), /--junit: is a directory, not a file \(got "adir"/);
  t.match(p.err(), /--work-dir: is a file, not a directory \(got "\/etc\/passwd"/);
  t.match(p.err(), new RegExp(`--report-json: cannot be made: ${join(dir, 'afile')} is a file, not a directory`));
  t.same(created(p), [], 'no host prepared, no lab made');

  const proc = probe(dir);
  t.equal(await main(['run', '--nomad', './n', '--reports-dir', '/proc/x/reports'], proc.deps), 2);
  t.match(proc.err(), /--reports-dir: cannot be made: \/proc is on proc, a kernel file system that holds no files/);

  const yaml = probe(t.testdir({ 'harness.yaml': 'reports:\n  dir: afile\n', afile: 'x' }));
  t.equal(await main(['run', '--nomad', './n'], yaml.deps), 2);
  t.match(yaml.err(), /harness\.yaml: reports\.dir: is a file, not a directory/, 'named where it was given');

  const both = probe(dir);
  t.equal(await main(['run', '--reports-dir', 'afile'], both.deps), 2, 'with another problem of the input');
  t.match(both.err(), /2 problems/);
  t.match(both.err(), /--nomad: scenario bridge-exec-reboot installs Nomad and needs a build/);
  t.match(both.err(), /--reports-dir: is a file/);

  const fine = probe(dir);
  t.equal(
    await main(
      ['run', '--nomad', './n', '--reports-dir', 'adir/new/reports', '--junit', 'adir/j.xml', '--expect', 'bogus'],
      fine.deps,
    ),
    2,
  );
  t.notMatch(fine.err(), /--reports-dir|--junit/, 'a folder to make and a file to write are fine');
});

t.test('merge --out: an existing file, /proc, or nothing is exit 2 naming --out, at once', async (t) => {
  const dir = t.testdir({ file: 'x', reports: {} });
  mkdirSync(join(dir, 'reports', 'r1'));
  writeFileSync(
    join(dir, 'reports', 'r1', 'junit.xml'),
    '<testsuites><testsuite name="s" tests="0"></testsuite></testsuites>',
  );
  const cases: [string, RegExp][] = [
    ['file', /--out: is a file, not a directory \(got "file"/],
    ['/proc/x', /--out: cannot be made: \/proc is on proc/],
    ['', /--out: must name a directory \(an empty path would mean the working directory\) \(got ""/],
  ];
  for (const [out, re] of cases) {
    const p = probe(dir);
    const started = Date.now();
    t.equal(await main(['merge', 'reports', '--out', out], p.deps), 2, `--out ${JSON.stringify(out)}`);
    t.match(p.err(), re);
    t.ok(Date.now() - started < 10_000, 'answered at once');
    t.notMatch(p.err(), /internal error/);
  }
});

t.test(
  "the report writer fails where it cannot make a folder instead of looping (Node's recursive mkdir spins on /proc)",
  async (t) => {
    const started = Date.now();
    await t.rejects(makeDirs('/proc/x/y'), { code: 'ENOENT' });
    t.ok(Date.now() - started < 5_000, 'at once');
    const dir = t.testdir({ file: 'x' });
    await makeDirs(join(dir, 'a', 'b', 'c'));
    await makeDirs(join(dir, 'a', 'b', 'c'));
    t.ok(statSync(join(dir, 'a', 'b', 'c')).isDirectory(), 'made, twice');
    await t.rejects(makeDirs(join(dir, 'file', 'sub')), { code: 'ENOTDIR' });
  },
);

t.test('--json with an error: a JSON error document on stdout (and the text on stderr)', async (t) => {
  const cases: [string[], number, RegExp][] = [
    [['run', '--json', '--memory', 'lots'], 2, /--memory/],
    [['doctor', '--json', '--memory', 'lots'], 2, /--memory/],
    [['build', '1.9.7', '--json', '--releases-url', 'http://u:SECRET@127.0.0.1:1/'], 2, /--releases-url/],
    [['list', '--json', '--bogus'], 2, /--bogus/],
    [['matrix', 'missing.yaml', '--list-cells', '--json'], 2, /matrix file/],
  ];
  for (const [argv, code, field] of cases) {
    const p = probe(t.testdir(), {}, { doctor: async () => 0 });
    t.equal(await main(argv, p.deps), code, argv.join(' '));
    const doc = JSON.parse(p.out()) as {
      schema: string;
      ok: boolean;
      exitCode: number;
      error: string;
      problems: { field: string; message: string; fix: string }[];
    };
    t.equal(doc.schema, ERROR_JSON_SCHEMA);
    t.equal(doc.ok, false);
    t.equal(doc.exitCode, code);
    t.ok(
      doc.problems.some((x) => field.test(x.field) && x.message && x.fix),
      `${argv.join(' ')}: the problem is named`,
    );
    t.match(p.err(), /^error: invalid configuration/);
    t.notMatch(p.out(), 'SECRET');
  }
  const text = probe(t.testdir());
  t.equal(await main(['run', '--memory', 'lots'], text.deps), 2);
  t.equal(text.out(), '', 'without --json, stdout stays empty');
});

t.test('a single-value flag given twice, and a flag no scenario of the session reads, are refused', async (t) => {
  const cases: [string[], RegExp[]][] = [
    [
      ['run', '--nomad', 'A', '--nomad', 'B'],
      [
        /--nomad: is given more than once and takes one value \(got \["A","B"\]; fix: give --nomad once \(only --expect, --job can be repeated\)\)/,
      ],
    ],
    [['run', '--nomad', 'A', '--json', '--json=false'], [/--json: is given more than once/]],
    [
      ['doctor', '--work-dir', '/a', '--work-dir=/b', '--work-dir', '/c'],
      [/--work-dir: is given more than once .*got \["\/a","\/b","\/c"\]/],
    ],
    [
      ['run', '--nomad', 'A', '--upgrade-to', 'B'],
      [
        /--upgrade-to: is not used by bridge-exec-reboot \(only by upgrade-in-place\), so it would be ignored \(got "B"; fix: drop --upgrade-to, or run upgrade-in-place\)/,
      ],
    ],
    [
      ['run', 'bridge-exec-reboot', '--nomad', 'A', '--upgrade-mode', 'restart-only'],
      [/--upgrade-mode: is not used by bridge-exec-reboot/],
    ],
    [
      ['run', 'cni-ipam-reboot', '--nomad', 'A'],
      [/--nomad: is not used by cni-ipam-reboot \(only by the scenarios that install Nomad\)/],
    ],
    [
      ['compare', '--before', 'X', '--after', 'Y', '--nomad', 'Z'],
      [
        /--nomad: cannot be combined with --before\/--after \(got "Z"; fix: drop --nomad: compare installs --before, then --after\)/,
      ],
    ],
  ];
  for (const [argv, res] of cases) {
    const p = probe(t.testdir(), {}, { doctor: async () => 0 });
    t.equal(await main(argv, p.deps), 2, argv.join(' '));
    for (const re of res) t.match(p.err(), re, argv.join(' '));
    t.same(created(p), []);
  }
  // the flags are fine where a scenario of the session reads them (another problem keeps the probe from running)
  for (const argv of [
    ['run', 'upgrade-in-place', '--nomad', 'A', '--upgrade-to', 'B'],
    ['run', '--all', '--nomad', 'A', '--upgrade-to', 'B'],
    ['run', '--nomad', 'A', '--json', '--json'],
  ]) {
    const p = probe(t.testdir());
    t.equal(await main([...argv, '--memory', 'lots'], p.deps), 2);
    t.notMatch(p.err(), /is not used by|more than once/, argv.join(' '));
  }
});

t.test('a mistyped option with a value is one problem: its value is not taken for a scenario', async (t) => {
  const p = probe(t.testdir());
  t.equal(await main(['run', '--nomda', '1.9.7'], p.deps), 2);
  t.match(p.err(), /--nomda: is not an option \(got "--nomda"; fix: did you mean --nomad\?/);
  t.notMatch(p.err(), /is not a known scenario/);
});

t.test(
  'value checks: an example inside the range, bounded positive durations, no cascades, an unknown help topic',
  async (t) => {
    const p = probe(t.testdir());
    t.equal(await main(['run', '--nomad', './n', '--settle-quiet', '601s', '--timeout', '7h'], p.deps), 2);
    t.match(
      p.err(),
      /--settle-quiet: must be a duration from 1s to 600s \(got "601s"; fix: write e.g. "5m" or "300"\)/,
    );
    t.match(p.err(), /--timeout: must be a duration from 10s to 21600s \(got "7h"; fix: write e.g. "1h" or "3600"\)/);

    for (const [grace, message] of [
      ['-5m', 'must be positive'],
      ['0s', 'must be longer than 0'],
      ['1000h', 'must be at most 6h'],
      ['5', 'must be a Go duration with a unit'],
    ]) {
      const g = probe(t.testdir());
      t.equal(
        await main(['run', '--nomad', './n', '--heartbeat-grace', grace!], g.deps),
        2,
        `--heartbeat-grace ${grace}`,
      );
      t.match(g.err(), `--heartbeat-grace: ${message} (got "${grace}"`);
    }
    const ok = probe(t.testdir());
    t.equal(await main(['run', '--nomad', './n', '--heartbeat-grace', '300ms', '--memory', 'lots'], ok.deps), 2);
    t.notMatch(ok.err(), /heartbeat-grace/, 'a short grace (the stand-ins use 300ms) is fine');

    const subnets = probe(
      t.testdir({ 'harness.yaml': 'lab:\n  private_subnet: 10.198.0.0/33\n  management_subnet: 10.199.0.0/24\n' }),
    );
    t.equal(await main(['run', '--nomad', './n'], subnets.deps), 2);
    t.match(subnets.err(), /lab\.private_subnet: must be a private IPv4 \/24 network/);
    t.notMatch(subnets.err(), /must be two different networks/, 'no cascade against the default it kept');

    const provider = probe(
      t.testdir({ 'harness.yaml': 'lab:\n  provider: sshh\n  hosts:\n    client:\n      address: 10.0.0.1\n' }),
    );
    t.equal(await main(['run', '--nomad', './n'], provider.deps), 2);
    t.match(provider.err(), /lab\.provider: must be one of libvirt, virtualbox, ssh \(got "sshh"/);
    t.notMatch(provider.err(), /is only used with lab\.provider: ssh/, 'no cascade against the default provider');

    const help = probe(t.testdir());
    t.equal(await main(['help', 'bogus'], help.deps), 2);
    t.match(help.err(), /help topic: is not a command \(got "bogus"; fix: use one of: run, compare/);
    t.equal(help.out(), '');
    const near = probe(t.testdir());
    t.equal(await main(['help', 'destory'], near.deps), 2);
    t.match(near.err(), /did you mean "destroy"\?/);
    const known = probe(t.testdir());
    t.equal(await main(['help', 'merge'], known.deps), 0);
    t.match(known.out(), /^reboot-harness merge:/);
  },
);

t.test('destroy: contradictory selectors are refused at once, nothing destroyed', async (t) => {
  const cases: [string[], RegExp[]][] = [
    [
      ['destroy', '--all', 'r1', '--warm'],
      [/--all: destroys every lab, so run id r1, --warm besides it contradicts it/],
    ],
    [
      ['destroy', '--all', '--older-than', '2h'],
      [/--all: destroys every lab, so --older-than besides it contradicts it/],
    ],
    [['destroy', '--warm', '--stale'], [/--warm\/--stale: contradict each other/]],
    [
      ['destroy', '--all', '--stale', '--older-than', 'soon'],
      [/2 problems/, /--all: destroys every lab/, /--older-than: must be a Go duration/],
    ],
  ];
  for (const [argv, res] of cases) {
    const p = probe(t.testdir());
    t.equal(await main(argv, p.deps), 2, argv.join(' '));
    for (const re of res) t.match(p.err(), re, argv.join(' '));
    t.same(p.effects, [], 'nothing destroyed');
  }
  for (const argv of [
    ['destroy', '--all'],
    ['destroy', 'r1', '--warm'],
    ['destroy', '--stale', '--older-than', '2h'],
  ]) {
    const p = probe(t.testdir());
    t.equal(await main(argv, p.deps), 0, argv.join(' '));
  }
});

t.test(
  'every problem of the whole input at once: an unreadable harness.yaml and a missing job file with the rest',
  async (t) => {
    // Note: a folder with a short path, so the value is echoed whole (a value over 120 characters is cut to its start,
    // and t.testdir's path under a grouped test build is longer than that)
    const dir = mkdtempSync(join(tmpdir(), 'nrh-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'harness.yaml'));
    const p = probe(dir);
    t.equal(await main(['run', '--cpus', '0', '--nomad', './n', '--job', 'nonexistent.hcl'], p.deps), 2);
    t.match(p.err(), /3 problems/);
    t.match(
      p.err(),
      `./harness.yaml (read by default): is a directory (got ${JSON.stringify(join(dir, 'harness.yaml'))}; fix: remove or rename it, or pass --config <file>)`,
    );
    t.match(p.err(), /--cpus: must be a whole number from 1 to 16/);
    t.match(
      p.err(),
      /job\.file \(--job\): cannot be read \(ENOENT\) \(a relative path is read from the working directory: \/\S+\/nonexistent\.hcl\) \(got "nonexistent\.hcl"/,
    );
    t.same(created(p), []);

    const docker = probe(t.testdir({ 'j.hcl': 'job "j" {}\n' }));
    t.equal(await main(['run', '--nomad', './n', '--job', 'j.hcl', '--driver', 'docker'], docker.deps), 2);
    t.match(docker.err(), /--driver: needs a box with Docker/);
    t.match(docker.err(), /job\.file \(--job\): cannot be combined with --driver docker/, 'with the box, not after it');

    const found = probe(t.testdir({ 'j.hcl': 'job "j" {}\n' }));
    t.equal(await main(['run', '--nomad', './n', '--job', 'j.hcl', '--memory', 'lots'], found.deps), 2);
    t.notMatch(found.err(), /job\.file/, 'a job file that is there (relative to the working directory) is fine');
  },
);

t.test("build: a file spec that is no Nomad build is told with the other specs' problems, at once", async (t) => {
  const p = probe(t.testdir());
  t.equal(await main(['build', '1.9', '/bin/true', 'arm64'], p.deps), 2);
  t.match(p.err(), /3 problems/);
  t.match(p.err(), /build spec 1: looks like a release version but is not a full one/);
  t.match(p.err(), /build spec 2: \/bin\/true: `version` printed nothing/);
  t.match(p.err(), /build spec 3: no file at /);
});
