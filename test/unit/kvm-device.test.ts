// /dev/kvm on a host without udev (lib/lab/kvm/kvm-device.ts): the lab host gives it to the kvm group as udev's default
// rule does, so libvirt keeps its QEMU capabilities cached, and `destroy --host` puts the mode it found back. The
// effects run on a regular file standing in for the device node, with a group file naming this process's group kvm.
import t from 'tap';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeMode, fixKvmDevice, groupGid, kvmDeviceFix, restoreKvmDevice } from '../../lib/lab/kvm/kvm-device.js';

t.test("the kvm group's gid from /etc/group", async (t) => {
  const etc = 'root:x:0:\nkvmx:x:5:\nkvm:x:107:\nlibvirt:x:108:libvirt-qemu\n';
  t.equal(groupGid(etc, 'kvm'), 107);
  t.equal(groupGid(etc, 'libvirt'), 108);
  t.equal(groupGid(etc, 'docker'), undefined);
  t.equal(groupGid('kvm:x:notanumber:\n', 'kvm'), undefined);
});

t.test("what to set: udev's root:kvm 0660 where the kvm group cannot read and write it", async (t) => {
  t.same(
    kvmDeviceFix({ uid: 0, gid: 0, mode: 0o600 }, 107),
    { uid: 0, gid: 107, mode: 0o660 },
    'no udev: root:root 0600',
  );
  t.same(
    kvmDeviceFix({ uid: 0, gid: 107, mode: 0o600 }, 107),
    { uid: 0, gid: 107, mode: 0o660 },
    'the group, without its bits',
  );
  t.same(kvmDeviceFix({ uid: 0, gid: 0, mode: 0o640 }, 107), { uid: 0, gid: 107, mode: 0o660 });
  t.equal(kvmDeviceFix({ uid: 0, gid: 107, mode: 0o660 }, 107), undefined, 'udev already did it');
  t.equal(kvmDeviceFix({ uid: 0, gid: 0, mode: 0o666 }, 107), undefined, "rw for everyone (GitHub runners' udev rule)");
  t.equal(kvmDeviceFix(undefined, 107), undefined, 'no /dev/kvm: nothing to do');
  t.equal(kvmDeviceFix({ uid: 0, gid: 0, mode: 0o600 }, undefined), undefined, 'no kvm group: nothing to give it to');
  t.equal(describeMode({ uid: 0, gid: 107, mode: 0o660 }, { 0: 'root', 107: 'kvm' }), 'root:kvm 0660');
  t.equal(describeMode({ uid: 0, gid: 5, mode: 0o600 }, { 0: 'root' }), 'root:5 0600');
});

t.test('fix, then put back; nothing put back when someone changed it since', async (t) => {
  const dir = t.testdir({ group: `root:x:0:\nkvm:x:${process.getgid!()}:\n`, kvm: '' });
  const [dev, group] = [join(dir, 'kvm'), join(dir, 'group')];
  chmodSync(dev, 0o600);
  const set = await fixKvmDevice(dev, group);
  t.ok(set, 'changed');
  t.equal(statSync(dev).mode & 0o777, 0o660);
  t.equal(statSync(dev).gid, process.getgid!());
  t.equal(await fixKvmDevice(dev, group), undefined, 'a second run finds it done');
  t.equal(await restoreKvmDevice(set!, dev), true);
  t.equal(statSync(dev).mode & 0o777, 0o600, 'back to what was found');
  chmodSync(dev, 0o660);
  const again = (await fixKvmDevice(dev, group)) ?? set!;
  chmodSync(dev, 0o666);
  t.equal(await restoreKvmDevice(again, dev), false, 'changed by someone else since: left as it is');
  t.equal(statSync(dev).mode & 0o777, 0o666);
  writeFileSync(join(dir, 'nogroup'), 'root:x:0:\n');
  chmodSync(dev, 0o600);
  t.equal(await fixKvmDevice(dev, join(dir, 'nogroup')), undefined, 'no kvm group: untouched');
  t.equal(await fixKvmDevice(join(dir, 'missing'), group), undefined, 'no device: untouched');
});
