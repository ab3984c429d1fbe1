// Pure: what the teardown of an existing host (lab.provider: ssh) runs there, as root. It stops the agent, ends the
// processes of the Nomad build the harness installed (task executors outlive the agent: KillMode=process), unmounts
// and removes the Nomad data dir (the job and every alloc go with it), the alloc network namespaces, the bridges and
// the host-local state (Nomad's and the cni-ipam-reboot probe's), every file the harness wrote
// (lib/cluster/provision.ts REMOTE, the CNI probe) and the CNI plugins it installed (lib/cluster/cni-plugins.ts: its
// manifest says which; what it replaced comes back); the tasks in Nomad's cgroup (v2) are killed and its cgroups
// removed; the iptables rules and chains the CNI plugins made per alloc go (lib/lab/ssh/ssh-iptables.ts). The machine keeps
// running. Not removed: the plugins' shared chains (empty by then), images imported into Docker.
import { REMOTE } from '../../cluster/provision.js';
import { CNI_PROBE_REMOTE_PATH } from '../../cni/commands.js';
import { cniUninstallScript } from '../../cluster/cni-plugins.js';
import { quote } from '../../shell/quote.js';
import { cniIptablesCleanupScript } from './ssh-iptables.js';
import { dirname } from 'node:path/posix';
import { CNI_STATE_DIRS } from '../../checks/cni-state.js';

/** Nomad's data dir in the agent templates (vms/templates/*.hcl). */
const NOMAD_DATA_DIR = '/var/lib/nomad';
/** The cni-ipam-reboot scenario's own network namespaces and its second bridge (scenarios/cni-ipam-reboot.ts). */
const PROBE_NETNS = ['cni-persistent', 'cni-tmpfs'];
const PROBE_BRIDGE = 'nomadtmp';
/** What an interrupted CNI upload leaves (lib/lab/ssh/ssh-lab.ts installCni). */
const CNI_UPLOADS = '/tmp/nomad-reboot-harness-cni.*';
/** Where Nomad puts its tasks on cgroup v2 (share.slice, reserve.slice: one scope per task). */
const TASK_CGROUP = '/sys/fs/cgroup/nomad.slice';
/** How long the build's processes get after TERM before KILL (0.2 s polls). */
const TERM_POLLS = 50;

/** The cleanup script (idempotent: every step tolerates what is already gone). */
export function sshHostCleanupScript(): string {
  const { binary, upload, config, unit, modules, sysctl } = REMOTE;
  const files = [binary, upload, config, unit, modules, sysctl, CNI_PROBE_REMOTE_PATH];
  const nomad = quote(`^${REMOTE.binary}( |$)`);
  const dirs = [dirname(config), dirname(CNI_PROBE_REMOTE_PATH)].map(quote).join(' ');
  return [
    'set -u',
    'systemctl disable --now nomad.service >/dev/null 2>&1 || true',
    `pkill -TERM -f ${nomad} || true`,
    `for i in $(seq ${TERM_POLLS}); do pgrep -f ${nomad} >/dev/null || break; sleep 0.2; done`,
    `pkill -KILL -f ${nomad} || true`,
    // the tasks themselves (an exec task outlives its executor): every process in Nomad's cgroup, then the cgroups
    `procs() { find ${TASK_CGROUP} -name cgroup.procs 2>/dev/null | xargs -r cat; }`,
    'procs | xargs -r kill -KILL 2>/dev/null || true',
    `for i in $(seq ${TERM_POLLS}); do [ -z "$(procs)" ] && break; sleep 0.2; done`,
    `find ${TASK_CGROUP} -depth -type d -exec rmdir {} \\; 2>/dev/null || true`,
    // deepest mounts first (alloc dirs, secrets tmpfs)
    `awk -v d=${quote(NOMAD_DATA_DIR)} 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r | xargs -r -n1 umount -l`,
    // alloc network namespaces are named by alloc ID (a UUID)
    'for ns in $(ls /var/run/netns 2>/dev/null); do case $ns in ' +
      '????????-????-????-????-????????????) ip netns delete "$ns" || true;; esac; done',
    ...PROBE_NETNS.map((ns) => `ip netns delete ${ns} 2>/dev/null || true`),
    ...['nomad', PROBE_BRIDGE].map((b) => `ip link delete ${b} 2>/dev/null || true`),
    cniIptablesCleanupScript(),
    `rm -rf ${[NOMAD_DATA_DIR, ...CNI_STATE_DIRS, ...files].map(quote).join(' ')} ${CNI_UPLOADS}`,
    cniUninstallScript(),
    // only the harness's own file went into these; anything else there stays
    `rmdir --ignore-fail-on-non-empty ${dirs} 2>/dev/null || true`,
    'systemctl daemon-reload || true',
  ].join('\n');
}
