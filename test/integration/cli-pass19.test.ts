// The CLI's nineteenth adversarial pass (docs/cli-defects.md, rows Q193 on), through the real CLI: an existing host's
// private key that is a FIFO or a device (read whole by the key check: the command hung past SIGTERM), a PEM private
// key given by mistake as an input file (the redactor took the rest of the message with it), and the build a failed
// matrix's defaults upgrade to (told only in a second round).
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { cliIn, PLANNED_RUN } from '../helpers/cli-in.js';
import { noLabLines } from '../helpers/cli-no-lab.js';

t.setTimeout(3 * 60_000);

/**
 * main() in `dir` as cliIn's child there ran it (its work and cache dirs inside, CI=true), for the lines that name no
 * FIFO: a FIFO's read that never ends would hold the test's process, so those stay children killed after 30 s.
 */
const cliAt = (dir: string) =>
  noLabLines(
    dir,
    { HOME: dir, HARNESS_WORK_DIR: join(dir, 'work'), XDG_CACHE_HOME: join(dir, 'cache'), CI: 'true' },
    { labless: true, realChecks: true, chdir: true },
  );

// A key cut for this test (not a key at all: base64 of nothing in particular).
const PEM = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEAc2VjcmV0a2V5Ym9keWxpbmVvbmVmb3J0aGVoYXJuZXNzdGVzdHM',
  'c2Vjb25kbGluZW9mdGhla2V5Ym9keXNlY3JldHNlY3JldHNlY3JldHNlY3JldHNlY3Jl',
  '-----END RSA PRIVATE KEY-----',
  '',
].join('\n');
const KEY_BODY = /MIIEowIBAAKCAQEA|c2VjcmV0a2V5|c2Vjb25kbGluZW9m/;

t.test("an existing host's key that is a FIFO or a device is told with the rest, not read (Q193)", async (t) => {
  const dir = t.testdir({
    'h.yaml': [
      'lab:',
      '  provider: ssh',
      '  hosts:',
      // a port each: one machine listed twice is refused (Q334)
      '    server: { address: 127.0.0.1, port: 2201, user: root, key: ./pipe }',
      '    client: { address: 127.0.0.1, port: 2202, user: root, key: /dev/zero }',
      '',
    ].join('\n'),
  });
  execFileSync('mkfifo', [join(dir, 'pipe')]);
  const res = cliIn(dir)('run', '--nomad', './nope', '--plan', '--netns', '', '-c', 'h.yaml');
  t.equal(res.signal, null, 'the command ends by itself');
  t.equal(res.status, 2);
  t.match(res.stderr, /lab\.hosts\.server\.key: is a named pipe \(FIFO\)/, 'the FIFO key told, not read');
  t.match(res.stderr, /lab\.hosts\.client\.key: is a character device/, 'the device told, not read');
  t.match(res.stderr, /--nomad: no file at/, 'with the other problems');
});

t.test('a private key given by mistake as an input keeps the problems after its own (Q194)', async (t) => {
  const dir = t.testdir({ 'key.pem': PEM });
  const cli = cliAt(dir);
  const run = await cli(...PLANNED_RUN, '--faults', 'key.pem', '--cpus', '0');
  t.equal(run.status, 2);
  t.match(run.stderr, /\(3 problems\)/);
  t.match(run.stderr, /key\.pem: \(file\): must be a mapping with `faults:`.*; fix: write faults:/, 'its own fix kept');
  t.match(run.stderr, /--nomad: no file at/, 'the problem told after it is kept');
  t.notMatch(run.stderr, KEY_BODY, 'no key material');
  const json = await cli('matrix', 'key.pem', '--plan', '--netns', '', '--cpus', '0', '--json');
  t.equal(json.status, 2);
  const doc = (() => {
    try {
      return JSON.parse(json.stdout) as { problems: { field: string }[] };
    } catch {
      return undefined;
    }
  })();
  t.ok(doc, 'the --json error document is JSON');
  t.same(
    doc?.problems.map((p) => p.field),
    ['key.pem: (top level)', '--cpus'],
    'both problems in it',
  );
  t.notMatch(json.stdout, KEY_BODY, 'no key material');
});

t.test("the build a failed matrix's defaults upgrade to is checked with the file's problems (Q195)", async (t) => {
  const dir = t.testdir({
    'm.yaml': [
      'scenario: upgrade-in-place',
      'parallel: 99',
      'axes:',
      '  nomad: [{name: a, binary: ./nope}]',
      'defaults:',
      '  upgrade_to: ./pipe',
      '',
    ].join('\n'),
    'n.yaml': [
      'scenario: upgrade-in-place',
      'parallel: 99',
      'axes:',
      '  nomad: [{name: a, binary: ./nope}]',
      'defaults:',
      '  upgrade_to: ./nope-either',
      '',
    ].join('\n'),
  });
  execFileSync('mkfifo', [join(dir, 'pipe')]);
  const cli = cliIn(dir);
  const fifo = cli('matrix', 'm.yaml', '--plan', '--netns', '');
  t.equal(fifo.signal, null, 'the command ends by itself');
  t.equal(fifo.status, 2);
  t.match(fifo.stderr, /m\.yaml: parallel: must be a whole number/);
  t.match(fifo.stderr, /--upgrade-to: is a named pipe \(FIFO\)/, 'the FIFO told in the same round');
  const inProcess = cliAt(dir);
  const missing = await inProcess('matrix', 'n.yaml', '--plan', '--netns', '');
  t.equal(missing.status, 2);
  t.match(missing.stderr, /--upgrade-to: no file at .*nope-either/, 'a missing build too');
  const flag = await inProcess('matrix', 'n.yaml', '--plan', '--netns', '', '--upgrade-to', './other');
  t.notMatch(flag.stderr, /nope-either/, 'not when the flag gives the build');
});
