// The repro command: same inputs, output locations dropped, every Nomad build named by absolute path and sha256.
import t from 'tap';
import { reproCommand } from '../../lib/report/repro.js';
import { reproEnv } from '../../lib/cli/session-command.js';

t.test('upgrade-in-place: both builds are checked by sha256 and passed by absolute path', async (t) => {
  const cmd = reproCommand({
    args: [
      'upgrade-in-place',
      '--nomad-binary',
      'a/nomad',
      '--upgrade-to=b/nomad',
      '--junit',
      'x.xml',
      '--expect',
      'unique-ips=fail',
      '--keep',
    ],
    argv: ['run', 'upgrade-in-place'],
    cwd: '/w',
    cli: '/w/bin/reboot-harness.js',
    builds: [
      { flag: '--nomad-binary', path: '/w/a/nomad', sha256: 'aa' },
      { flag: '--upgrade-to', path: '/w/b/nomad', sha256: 'bb' },
    ],
  });
  t.equal(
    cmd,
    "cd /w && echo 'aa  /w/a/nomad' | sha256sum --check --quiet && echo 'bb  /w/b/nomad' | sha256sum --check --quiet && node /w/bin/reboot-harness.js run upgrade-in-place --nomad-binary /w/a/nomad --upgrade-to /w/b/nomad --expect 'unique-ips=fail' --keep",
  );
});

t.test('a run keeps its other inputs; a build without a checksum is still named', async (t) => {
  const cmd = reproCommand({
    args: ['bridge-exec-reboot', '--reports-dir', 'r', '--reboots', '3'],
    argv: ['run', 'bridge-exec-reboot'],
    cwd: '/w',
    cli: '/c.js',
    builds: [{ flag: '--nomad-binary', path: '/n' }],
  });
  t.equal(cmd, 'cd /w && node /c.js run bridge-exec-reboot --nomad-binary /n --reboots 3');
});

t.test('compare: both builds checked, the command is compare', async (t) => {
  const cmd = reproCommand({
    argv: ['compare', 'bridge-exec-reboot'],
    args: ['bridge-exec-reboot', '--before', './x', '--after=./y', '--timeout', '40m'],
    cwd: '/w',
    cli: '/c.js',
    builds: [
      { flag: '--before', path: '/w/x', sha256: '11' },
      { flag: '--after', path: '/w/y', sha256: '22' },
    ],
  });
  t.equal(
    cmd,
    "cd /w && echo '11  /w/x' | sha256sum --check --quiet && echo '22  /w/y' | sha256sum --check --quiet && node /c.js compare bridge-exec-reboot --before /w/x --after /w/y --timeout 40m",
  );
});

t.test('variables that shaped the run are set again in front of each command, for that command only', async (t) => {
  const cmd = reproCommand({
    args: ['--timeout', '40m'],
    argv: ['run', 'bridge-exec-reboot'],
    cwd: '/w',
    cli: '/c.js',
    builds: [{ flag: '--nomad', path: '/n', sha256: 'ab', spec: '1.9.7', cli: '/c.js' }],
    env: [
      ['HARNESS_LIBVIRT_DRIVER', 'qemu'],
      ['HARNESS_NETNS', ''],
      ['HARNESS_WORK_DIR', '/tmp/my labs'],
    ],
  });
  const env = "HARNESS_LIBVIRT_DRIVER=qemu HARNESS_NETNS='' HARNESS_WORK_DIR='/tmp/my labs'";
  t.equal(
    cmd,
    `cd /w && ${env} node /c.js build --quiet --json 1.9.7 | grep -q '"sha256": "ab"' && ${env} node /c.js run bridge-exec-reboot --nomad 1.9.7 --timeout 40m`,
  );
});

t.test("with the command's value flags, a boolean flag before the scenario does not swallow it", async (t) => {
  const cmd = reproCommand({
    args: ['--keep', 'bridge-exec-reboot', '--netns', '', '--reboots', '-1', '--junit', 'j.xml'],
    argv: ['run', 'bridge-exec-reboot'],
    cwd: '/w',
    cli: '/c.js',
    valueFlags: new Set(['--netns', '--reboots', '--junit']),
  });
  t.equal(cmd, "cd /w && node /c.js run bridge-exec-reboot --keep --netns '' --reboots -1");
});

t.test('a matrix cell keeps the inputs given to the whole matrix, not its selection or output places', async (t) => {
  const cmd = reproCommand({
    argv: ['matrix', 'm.yaml', '--cell', 'bridge-exec-reboot/nomad=1.9.3'],
    args: ['m.yaml', '--shard', '2/3', '--netns', '', '--timeout', '1h', '--junit', 'j.xml', '--keep'],
    cwd: '/w',
    cli: '/c.js',
    builds: [{ path: '/n', sha256: 'ab' }],
    env: [['HARNESS_TIMEOUT', '2h']],
    valueFlags: new Set(['--shard', '--netns', '--timeout', '--junit']),
  });
  t.equal(
    cmd,
    "cd /w && echo 'ab  /n' | sha256sum --check --quiet && HARNESS_TIMEOUT=2h node /c.js matrix m.yaml --cell 'bridge-exec-reboot/nomad=1.9.3' --netns '' --timeout 1h --keep",
  );
});

t.test('the CLI hands the repro the variables the config read: none that is a secret, a build or unset', async (t) => {
  t.same(
    reproEnv({
      HARNESS_LIBVIRT_DRIVER: 'kvm',
      HARNESS_TIMEOUT: '30m',
      HARNESS_WORK_DIR: '/w/labs',
      HARNESS_NETNS: '',
      HARNESS_BOX: '',
      NOMAD_TOKEN: 'secret-token',
      NOMAD_BUILD: '1.9.7',
      HARNESS_REPEAT: '3',
      PATH: '/usr/bin',
    }).sort(),
    [
      ['HARNESS_LIBVIRT_DRIVER', 'kvm'],
      ['HARNESS_NETNS', ''],
      ['HARNESS_REPEAT', '3'],
      ['HARNESS_TIMEOUT', '30m'],
      ['HARNESS_WORK_DIR', '/w/labs'],
    ],
  );
});
