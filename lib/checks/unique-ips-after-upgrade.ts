// Check: after the in-place upgrade and the scale-up no two live allocs share an address (the GH-25093 collision),
// judged twice: from the API (NetworkStatus) and from the client host (which namespaces hold which address). Failing
// samples name the address and every holder. It was `unique-ips` before, the id of the reboot scenario's own check.
import { defineCheck } from './define.js';
import type { Judgement } from '../model/check.js';
import { judgement } from './result.js';
import { allocsByAddress } from './unique-ips.js';
import { hostAddressConflicts, netnsLines } from './host-addresses.js';
import { LIVE, type UpgradeEvidence } from './upgrade-evidence.js';

export const UNIQUE_IPS_AFTER_UPGRADE = defineCheck<UpgradeEvidence>({
  id: 'unique-ips-after-upgrade',
  formerly: ['unique-ips'],
  title: 'Unique alloc IPs after the upgrade',
  passesWhen:
    'after the upgrade and the scale-up no two live allocs share an address in the API, and no two network namespaces on the client host hold the same address',
  details:
    'after the upgrade and the scale-up no two live allocs share an address **in the API**, and no two network namespaces **on the client host** hold the same address (the host view lists every namespace, named or only held by a process, with its addresses: `client-netns-after.json`)',
  judge: judgeUniqueAfterUpgrade,
});

function judgeUniqueAfterUpgrade(e: UpgradeEvidence): Judgement {
  const by = allocsByAddress(e.after, (a) => LIVE.has(a.clientStatus));
  const older = new Set(e.before.map((a) => a.id));
  const live = new Set(e.after.filter((a) => LIVE.has(a.clientStatus)).map((a) => a.id));
  const tag = (aid: string) => `${short(aid)}${older.has(aid) ? ' (from before the upgrade)' : ' (placed after)'}`;
  const host = e.hostNetns ?? [];
  const evidence = [
    ...[...by]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([addr, ids]) => `API: ${addr} -> ${ids.map(tag).join(', ')}`),
    ...netnsLines(host, live).map((l) => `host: ${l}`),
  ];
  if (by.size === 0 && host.every((n) => !n.addrs.length))
    return judgement(
      'skipped',
      `no live alloc on the node reported an address (${e.after.length} seen)`,
      e.after.map((a) => `${a.id} client=${a.clientStatus}`),
    );
  const shared = [...by]
    .filter(([, ids]) => ids.length > 1)
    .map(([addr, ids]) => `${addr} is held by ${ids.map(tag).join(' and ')} (API)`);
  const onHost = hostAddressConflicts(host, live).map(
    (c) => `${c.addr} is held by ${c.holders.join(' and ')} (client host)`,
  );
  if (shared.length || onHost.length)
    return judgement('failed', `two holders of one address: ${[...shared, ...onHost].join('; ')}`, evidence);
  const hostNote = e.hostNetns
    ? `; on the client host every address is held by one network namespace (${host.filter((n) => n.addrs.length).length} with addresses)`
    : '';
  return judgement(
    'passed',
    `${[...by.values()].flat().length} live allocs, each with its own address${hostNote}`,
    evidence,
  );
}

const short = (id: string): string => id.slice(0, 8);
