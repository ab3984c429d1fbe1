// The repro command: same inputs, output locations dropped, every Nomad build named by absolute path and sha256.
import t from 'tap';
import { reproCommand } from '../../lib/cli/repro.js';

t.test('upgrade-in-place: both builds are checked by sha256 and passed by absolute path', async (t) => {
  const cmd = reproCommand({
    args: ['upgrade-in-place', '--nomad-binary', 'a/nomad', '--upgrade-to=b/nomad', '--junit', 'x.xml', '--expect', 'unique-ips=fail', '--keep'],
    scenario: 'upgrade-in-place', cwd: '/w', cli: '/w/bin/reboot-harness.js',
    nomadBinary: '/w/a/nomad', nomadSha256: 'aa', upgradeTo: '/w/b/nomad', upgradeSha256: 'bb',
  });
  t.equal(cmd, "cd /w && echo 'aa  /w/a/nomad' | sha256sum --check --quiet && echo 'bb  /w/b/nomad' | sha256sum --check --quiet && node /w/bin/reboot-harness.js run upgrade-in-place --nomad-binary /w/a/nomad --upgrade-to /w/b/nomad --expect 'unique-ips=fail' --keep");
});

t.test('without an upgrade build the --upgrade-to flag (if any) is kept as given', async (t) => {
  const cmd = reproCommand({ args: ['bridge-exec-reboot', '--reports-dir', 'r', '--reboots', '3'], scenario: 'bridge-exec-reboot', cwd: '/w', cli: '/c.js', nomadBinary: '/n', nomadSha256: 'cc' });
  t.equal(cmd, "cd /w && echo 'cc  /n' | sha256sum --check --quiet && node /c.js run bridge-exec-reboot --nomad-binary /n --reboots 3");
});
