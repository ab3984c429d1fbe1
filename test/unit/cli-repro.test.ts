// The repro command: same inputs, output locations dropped, every Nomad build named by absolute path and sha256.
import t from 'tap';
import { reproCommand } from '../../lib/report/repro.js';

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
