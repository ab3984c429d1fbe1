// rebootMachine against a real sshd, with the boot id faked through a file the "reboot" rewrites.
import t from 'tap';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SshMachine } from '../../lib/ssh/client.js';
import { rebootMachine } from '../../lib/ssh/reboot.js';
import { sh } from '../../lib/shell/quote.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { HarnessError, TimeoutError } from '../../lib/errors.js';
import { sshdForTest } from '../helpers/sshd.js';
import { rejection } from '../helpers/rejection.js';

const sshd = await sshdForTest(t);
if (sshd) {
  // Fake sudo (the real one may be missing): check -n, run the rest.
  writeFileSync(path.join(sshd.binDir, 'sudo'), '#!/bin/sh\n[ "$1" = -n ] || exit 99\nshift\nexec "$@"\n');
  chmodSync(path.join(sshd.binDir, 'sudo'), 0o755);
  const bootFile = path.join(sshd.dir, 'boot_id');
  const machine = () =>
    new SshMachine({
      role: 'client',
      name: 'fakeclient',
      target: sshd.target,
      bootIdCommand: sh`cat ${bootFile}`,
      connectTimeoutMs: 2000,
    });

  t.test('graceful: the reboot command returns 0, then the boot id changes', async (t) => {
    writeFileSync(bootFile, 'boot-A\n');
    const m = machine();
    t.teardown(() => m.disconnect());
    const rebootCommand = sh`sh -c ${sh`sleep 1.5; echo boot-B > ${bootFile}`} >/dev/null 2>&1 &`;
    const rec = await rebootMachine(m, 'graceful', { deadline: deadlineIn(20_000), rebootCommand });
    t.equal(rec.bootIdBefore, 'boot-A');
    t.equal(rec.bootIdAfter, 'boot-B');
    t.equal(rec.machine, 'fakeclient');
    t.equal(rec.kind, 'graceful');
    t.ok(rec.backAt - rec.requestedAt >= 1000, `came back after the change (${rec.backAt - rec.requestedAt}ms)`);
  });

  t.test('graceful: a connection dropped while requesting the reboot is expected', async (t) => {
    writeFileSync(bootFile, 'boot-C\n');
    const m = machine();
    t.teardown(() => m.disconnect());
    // The "reboot" changes the boot id, then hangs until sshd drops every connection (as a going-down host does).
    const rebootCommand = sh`echo boot-D > ${bootFile}; sleep 20`;
    setTimeout(() => sshd.dropConnections(), 1000);
    const rec = await rebootMachine(m, 'graceful', { deadline: deadlineIn(20_000), rebootCommand });
    t.equal(rec.bootIdAfter, 'boot-D');
  });

  t.test('graceful: a reboot command that fails is an error, not a wait', async (t) => {
    writeFileSync(bootFile, 'boot-E\n');
    const m = machine();
    t.teardown(() => m.disconnect());
    const err = await rejection(
      rebootMachine(m, 'graceful', { deadline: deadlineIn(20_000), rebootCommand: 'echo no permission >&2; exit 4' }),
    );
    t.type(err, HarnessError);
    t.match(String(err), /exited 4: no permission/);
  });

  t.test('hard: power reset takes sshd away; polling reconnects over fresh connections', async (t) => {
    writeFileSync(bootFile, 'boot-F\n');
    const m = machine();
    t.teardown(() => m.disconnect());
    let resets = 0;
    const hardReset = async () => {
      resets++;
      await sshd.stop();
      writeFileSync(bootFile, 'boot-G\n');
      setTimeout(() => void sshd.start(), 2500);
    };
    const rec = await rebootMachine(m, 'hard', { deadline: deadlineIn(30_000), hardReset });
    t.equal(resets, 1);
    t.equal(rec.bootIdAfter, 'boot-G');
    t.equal(rec.kind, 'hard');
  });

  t.test('hard without a provider reset is refused', async (t) => {
    writeFileSync(bootFile, 'boot-H\n');
    const m = machine();
    t.teardown(() => m.disconnect());
    const err = await rejection(rebootMachine(m, 'hard', { deadline: deadlineIn(10_000) }));
    t.match(String(err), /hard reset of fakeclient: this lab has no power-reset/);
  });

  t.test('boot id that never changes: TimeoutError names the machine and the unchanged id', async (t) => {
    writeFileSync(bootFile, 'boot-I\n');
    const m = machine();
    t.teardown(() => m.disconnect());
    // Note: 6 s, not 3: the error names the unchanged id only if one read of it finished, and under load the reboot
    // command and the first reads once took all but half a second of 3 s
    const err = await rejection(rebootMachine(m, 'graceful', { deadline: deadlineIn(6000), rebootCommand: 'true' }));
    t.type(err, TimeoutError);
    t.match(String(err), /fakeclient to answer over SSH with a new boot_id \(was boot-I\)/);
    t.match(String(err), /still boot-I/);
  });
}
