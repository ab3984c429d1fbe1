// The registry: every shipped check, each registered once. Scenarios list these objects; whatever needs a check by its
// id (an old --expect id, a test that walks them all) looks it up here. Ids are unique across it (registryProblems).
import type { CheckDef, CheckInfo } from '../model/check.js';
import { CLIENT_REBOOTED } from './client-rebooted.js';
import { NODE_BACK } from './node-back.js';
import { ALLOC_RESTORED } from './alloc-restored.js';
import { TASK_RESTARTED } from './task-restarted.js';
import { HTTP_REACHABLE } from './http-reachable.js';
import { NO_DUPLICATE_IP } from './no-duplicate-ip.js';
import { UNIQUE_IPS } from './unique-ips.js';
import { NO_LEAKS } from './no-leaks.js';
import { HOST_REBOOTED } from './host-rebooted.js';
import { PERSISTENT_STATE_DUPLICATE } from './persistent-state-duplicate.js';
import { TMPFS_STATE_CLEAN } from './tmpfs-state-clean.js';
import { UNIQUE_IPS_AFTER_UPGRADE } from './unique-ips-after-upgrade.js';
import { STATE_AGREES } from './state-agrees.js';
import { STATE_MIGRATED } from './state-migrated.js';
import { TASK_DIRS } from './task-dirs.js';
import { TASK_NETNS } from './task-netns.js';
import { TASK_ENV } from './task-env.js';
import { ALLOC_EXEC } from './alloc-exec.js';
import { SERVICES } from './services.js';
import { AGENT_RESOURCES } from './agent-resources.js';
import { ALLOCS_FOLLOWED } from './allocs-followed.js';
import { UNTOUCHED_ALLOCS } from './untouched-allocs.js';
import { SERVICE_CONTINUITY } from './service-continuity.js';
import { TARGETS_HIT } from './targets-hit.js';
import { NEW_LEADER } from './new-leader.js';
import { OLD_LEADER_REJOINED } from './old-leader-rejoined.js';

/** Every shipped check, once. */
export const SHIPPED_CHECKS: readonly CheckDef[] = [
  CLIENT_REBOOTED,
  NODE_BACK,
  ALLOC_RESTORED,
  TASK_RESTARTED,
  HTTP_REACHABLE,
  NO_DUPLICATE_IP,
  UNIQUE_IPS,
  NO_LEAKS,
  TASK_DIRS,
  TASK_NETNS,
  TASK_ENV,
  ALLOC_EXEC,
  SERVICES,
  AGENT_RESOURCES,
  HOST_REBOOTED,
  PERSISTENT_STATE_DUPLICATE,
  TMPFS_STATE_CLEAN,
  UNIQUE_IPS_AFTER_UPGRADE,
  STATE_AGREES,
  STATE_MIGRATED,
  TARGETS_HIT,
  ALLOCS_FOLLOWED,
  UNTOUCHED_ALLOCS,
  SERVICE_CONTINUITY,
  NEW_LEADER,
  OLD_LEADER_REJOINED,
];

/** The shipped check with this id. */
export function checkById(id: string): CheckDef | undefined {
  return SHIPPED_CHECKS.find((c) => c.id === id);
}

/**
 * What is wrong with a list of checks as a registry: an id given twice (two meanings for one name), or an old id
 * (`formerly`) claimed by two checks or equal to the check's own id.
 */
export function registryProblems(checks: readonly CheckInfo[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const c of checks) {
    if (seen.has(c.id)) out.push(`check id ${c.id} is defined twice`);
    seen.add(c.id);
  }
  const former = new Map<string, string>();
  for (const c of checks) {
    for (const old of c.formerly ?? []) {
      if (old === c.id) out.push(`check ${c.id} lists its own id as a former one`);
      else if (former.has(old)) out.push(`former id ${old} is claimed by ${former.get(old)} and ${c.id}`);
      else former.set(old, c.id);
    }
  }
  return out;
}
