// VM tier: lab.provider ssh against a machine that already exists. The test brings up one VM itself (vagrant-libvirt
// in the lab's network namespace, like the harness's own lab), hands it over as an existing client host
// (harness.yaml lab.hosts.client, lab.hosts_netns; no server host, since cni-ipam-reboot uses the client alone), and
// runs the real CLI against it: refusals that name host and field (no reset command for a hard reboot, an unreadable
// key, an unreachable port), then cni-ipam-reboot with `virsh reset` as lab.hard_reset_command, whose teardown must
// leave the host up, with the CNI plugins it was handed over with and nothing of the harness. The same assertions run
// on two hosts with bridge-exec-reboot on real Nomad in test/e2e/ssh-hosts.test.ts. Skips visibly without the lab.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { cniCacheDir, findGo } from '../../lib/cluster/cni-build.js';
import { CNI_PLUGINS_VERSION } from '../../lib/cluster/cni-plugins.js';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import { assertVmTier, bringUpHosts } from '../helpers/handed-over-hosts.js';

// Note: tap's per-file timeout (package.json) is far below a real VM run; this file sets its own.
t.setTimeout(40 * 60_000);
const NETNS = process.env['HARNESS_NETNS'] || 'nrh-lab';
// The harness installs the CNI reference plugins on an existing client, built here from the Go module proxy.
const plugins =
  existsSync(join(cniCacheDir(CNI_PLUGINS_VERSION, process.env, homedir()), 'bridge')) ||
  (await findGo(process.env)) !== undefined;
const skip =
  vmSkipReason() ??
  (plugins ? undefined : `Go is missing and the CNI plugins ${CNI_PLUGINS_VERSION} are not cached: install Go >= 1.21`);

t.test(
  "a VM handed over as an existing client host: refusals, a hard reset by the user's command, a clean teardown",
  { skip: skip ?? false, timeout: 35 * 60_000 },
  async (t) => {
    const dir = t.testdir({});
    const lab = await bringUpHosts(t, NETNS, ['client']);
    const config = readFileSync(lab.config(dir), 'utf8');
    t.notMatch(config, /server:/, 'the harness.yaml names the client host only');
    await assertVmTier(t, lab, dir);
    await lab.destroy();
    t.same(domainsMatching(lab.runId), [], 'the handed-over VM is destroyed');
  },
);
