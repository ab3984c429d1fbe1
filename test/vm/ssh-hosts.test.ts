// VM tier: lab.provider ssh against two VMs this test brings up itself (vagrant-libvirt, in the lab's network
// namespace) and hands over as existing hosts; the CLI reaches them through lab.hosts_netns. No Nomad here
// (cni-ipam-reboot); test/e2e/ssh-hosts.test.ts adds bridge-exec-reboot on real Nomad to the same bring-up.
// Run under `flock /work/vm.lock`; skips visibly without the lab.
import t from 'tap';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import { NETNS } from '../helpers/real-nomad.js';
import { assertVmTier, bringUpHosts } from '../helpers/handed-over-hosts.js';

t.setTimeout(60 * 60_000);
const skip = vmSkipReason();

t.test('existing hosts over SSH: refusals name host and field; CNI plugins installed and taken back; hard reset',
  { skip: skip ?? false, timeout: 50 * 60_000 }, async (t) => {
  const dir = t.testdir({});
  const lab = await bringUpHosts(t, NETNS);
  await assertVmTier(t, lab, dir);
  await lab.destroy();
  t.same(domainsMatching(lab.runId), [], 'the handed-over VMs are destroyed');
});
