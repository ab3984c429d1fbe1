// upgrade-in-place checks on samples: the real v1.9.7 capture (alloc, its host-local reservation file, the real
// "migrated CNI state" log line), and the GH-25093 collision built from it (a second alloc handed the same address).
import t from 'tap';
import { judgeAll, judgeCheck } from '../../lib/checks/define.js';
import { readFileSync } from 'node:fs';
import type { ApiAllocation } from '../../lib/nomad/api-types.js';
import { toAllocSnap } from '../../lib/nomad/parse.js';
import type { AllocSnap, CniStateListing } from '../../lib/model/evidence.js';
import { NEW_CNI_DIR, OLD_CNI_DIR, reservationsOf } from '../../lib/checks/cni-state.js';
import type { UpgradeEvidence } from '../../lib/checks/upgrade-evidence.js';
import { UNIQUE_IPS_AFTER_UPGRADE } from '../../lib/checks/unique-ips-after-upgrade.js';
import { STATE_AGREES } from '../../lib/checks/state-agrees.js';
import { STATE_MIGRATED } from '../../lib/checks/state-migrated.js';
import { UPGRADE_CHECKS } from '../../scenarios/upgrade-in-place.js';

const upgradeChecks = (e: UpgradeEvidence) => judgeAll(UPGRADE_CHECKS, e);

const REAL = new URL('../fixtures/nomad/real-1.9.7/', import.meta.url);
const real = (p: string) => readFileSync(new URL(p, REAL));
const alloc = toAllocSnap(JSON.parse(real('reboot-sim/initial/allocation.json').toString('utf8')) as ApiAllocation);
const stateDir = 'reboot-sim/initial/host-state/var-run-cni-nomad/';
const realFiles = Object.fromEntries(
  ['172.26.64.2', 'last_reserved_ip.0', 'lock'].map((f) => [f, real(stateDir + f).toString('utf8')]),
);
const migratedLine = real('reboot-sim-stale-migration/client-log-excerpt.txt')
  .toString('utf8')
  .split('\n')
  .find((l) => l.includes('migrated CNI state'))!;

const other = (id: string, address: string): AllocSnap => ({
  ...alloc,
  id,
  name: `bridge-exec-http.web[${id.slice(0, 1)}]`,
  address,
});
const dir = (d: string, files?: Record<string, string>): CniStateListing =>
  files ? { dir: d, exists: true, files } : { dir: d, exists: false, files: {} };
const res = (id: string) => `${id}\r\neth0`;
const B = 'bbbbbbbb-0000-4000-8000-000000000002';

t.test('the real v1.9.7 reservation file names the real alloc', async (t) => {
  t.equal(alloc.address, '172.26.64.2');
  t.same(
    [...reservationsOf(dir(NEW_CNI_DIR, realFiles))],
    [['172.26.64.2', alloc.id]],
    'lock and last_reserved_ip.0 are not reservations; CRLF + ifname stripped',
  );
});

// 1.9.7 after the upgrade: old dir gone, the alloc from before and a new one each with their own reservation.
const migrated: UpgradeEvidence = {
  mode: 'upgrade',
  before: [alloc],
  after: [alloc, other(B, '172.26.64.3')],
  cniAfter: [
    dir(OLD_CNI_DIR),
    dir(NEW_CNI_DIR, { ...realFiles, '172.26.64.3': res(B), 'last_reserved_ip.0': '172.26.64.3' }),
  ],
  clientLog: [migratedLine],
};

t.test('migrated sample: every check passes', async (t) => {
  const r = upgradeChecks(migrated);
  t.same(
    r.map((x) => [x.id, x.status]),
    UPGRADE_CHECKS.map((c) => [c.id, 'passed']),
  );
  t.match(
    r.find((x) => x.id === STATE_MIGRATED.id)!.message,
    /client logged the migration: .*migrated CNI state: src=\/var\/lib\/cni\/networks\/nomad dest=\/var\/run\/cni\/nomad/,
  );
  const noLog = judgeCheck(STATE_MIGRATED, { ...migrated, clientLog: [] });
  t.equal(noLog.status, 'passed', 'without the log line: the dirs alone show the migration');
  t.match(noLog.message, /is gone and \/var\/run\/cni\/nomad holds the reservations of the 1 allocs/);
});

// 1.9.4-1.9.6 after the upgrade: the old dir still has the running alloc, the empty tmpfs dir handed its address out again.
const collide: UpgradeEvidence = {
  mode: 'upgrade',
  before: [alloc],
  after: [alloc, other(B, '172.26.64.2')],
  cniAfter: [
    dir(OLD_CNI_DIR, realFiles),
    dir(NEW_CNI_DIR, { '172.26.64.2': res(B), 'last_reserved_ip.0': '172.26.64.2', lock: '' }),
  ],
  clientLog: ['2025-03-01T10:00:00.000Z [INFO]  agent: Nomad agent started!'],
};

t.test('colliding sample: every check fails, naming the address and both allocs', async (t) => {
  const u = judgeCheck(UNIQUE_IPS_AFTER_UPGRADE, collide);
  t.equal(u.status, 'failed');
  t.match(
    u.message,
    `172.26.64.2 is held by ${alloc.id.slice(0, 8)} (from before the upgrade) and bbbbbbbb (placed after)`,
  );
  const s = judgeCheck(STATE_AGREES, collide);
  t.equal(s.status, 'failed');
  t.match(s.message, `alloc ${alloc.id.slice(0, 8)} at 172.26.64.2: ${NEW_CNI_DIR}/172.26.64.2 names bbbbbbbb`);
  t.match(
    s.evidence.join('\n'),
    `${OLD_CNI_DIR}: 1 reservation(s) 172.26.64.2=${alloc.id.slice(0, 8)}`,
    'both dirs shown',
  );
  const m = judgeCheck(STATE_MIGRATED, collide);
  t.equal(m.status, 'failed');
  t.match(m.message, `${OLD_CNI_DIR} still exists (1 reservation(s)) and the client logged no "migrated CNI state"`);
  t.match(m.evidence.join('\n'), `alloc ${alloc.id.slice(0, 8)} at 172.26.64.2 has no reservation in ${NEW_CNI_DIR}`);
});

t.test('a failed migration is quoted; a stale reservation and a missing one fail state-agrees', async (t) => {
  const line =
    '2025-03-01T10:00:00.000Z [ERROR] client: failed to migrate existing CNI state: error="open /var/run/cni/nomad/lock: file exists" src=/var/lib/cni/networks/nomad dest=/var/run/cni/nomad';
  const m = judgeCheck(STATE_MIGRATED, { ...migrated, clientLog: [line, migratedLine] });
  t.equal(m.status, 'failed');
  t.match(
    m.message,
    /could not migrate its CNI state: .*failed to migrate existing CNI state: error="open \/var\/run\/cni\/nomad\/lock: file exists"/,
  );
  const stale = judgeCheck(STATE_AGREES, {
    ...migrated,
    cniAfter: [dir(NEW_CNI_DIR, { ...migrated.cniAfter[1]!.files, '172.26.64.9': res('cccccccc-dead') })],
  });
  t.equal(stale.status, 'failed');
  t.match(stale.message, `${NEW_CNI_DIR}/172.26.64.9 names cccccccc, not a live alloc`);
  const missing = judgeCheck(STATE_AGREES, { ...migrated, cniAfter: [dir(NEW_CNI_DIR, realFiles)] });
  t.match(missing, { status: 'failed', message: `no ${NEW_CNI_DIR}/172.26.64.3` });
  const gone = judgeCheck(STATE_MIGRATED, {
    ...migrated,
    clientLog: [],
    cniAfter: [dir(OLD_CNI_DIR), dir(NEW_CNI_DIR, { '172.26.64.3': res(B) })],
  });
  t.match(gone, {
    status: 'failed',
    message: /is gone but \/var\/run\/cni\/nomad lacks allocs that ran before the upgrade/,
  });
});

t.test('skips: restart-only has nothing to migrate; no listing; no addresses', async (t) => {
  t.match(judgeCheck(STATE_MIGRATED, { ...collide, mode: 'restart-only' }), {
    status: 'skipped',
    message: /restart-only/,
  });
  t.match(judgeCheck(STATE_AGREES, { ...migrated, cniAfter: [] }), { status: 'skipped' });
  t.match(judgeCheck(UNIQUE_IPS_AFTER_UPGRADE, { ...migrated, after: [{ ...alloc, address: undefined }] }), {
    status: 'skipped',
  });
  t.match(judgeCheck(STATE_AGREES, { ...migrated, cniAfter: [dir(OLD_CNI_DIR), dir(NEW_CNI_DIR)] }), {
    status: 'failed',
    message: /no host-local state dir holds a reservation/,
  });
  t.equal(
    judgeCheck(STATE_MIGRATED, { ...migrated, mode: 'upgrade-then-reboot' }).status,
    'passed',
    'upgrade-then-reboot is judged like upgrade',
  );
});

// The shape of the real v1.9.3 -> v1.9.5 upgrade (run r7u0tp7e1916eb): the API shows every alloc with its own address
// (the restored alloc got a new namespace and 172.26.64.5), but the old namespace, still held by the task started on
// v1.9.3, keeps 172.26.64.2, which the new alloc was given too. Only the host view sees it.
t.test('unique-ips: a collision only the client host shows fails the check, naming both holders', async (t) => {
  const hidden: UpgradeEvidence = {
    ...collide,
    after: [{ ...alloc, address: '172.26.64.5' }, other(B, '172.26.64.2')],
    hostNetns: [
      { inode: '4026532300', names: [alloc.id], pids: [], addrs: [{ ifname: 'eth0', cidr: '172.26.64.5/20' }] },
      {
        inode: '4026532301',
        names: [B],
        pids: [{ pid: 1740, comm: 'python3' }],
        addrs: [{ ifname: 'eth0', cidr: '172.26.64.2/20' }],
      },
      {
        inode: '4026532200',
        names: [],
        pids: [{ pid: 1034, comm: 'python3' }],
        addrs: [{ ifname: 'eth0', cidr: '172.26.64.2/20' }],
      },
    ],
  };
  const u = judgeCheck(UNIQUE_IPS_AFTER_UPGRADE, hidden);
  t.equal(u.status, 'failed', u.message);
  t.match(
    u.message,
    '172.26.64.2 is held by netns bbbbbbbb [pid 1740 python3] and an unnamed netns of pid 1034 python3 (client host)',
  );
  t.notMatch(u.message, /\(API\)/, 'the API view alone had no collision');
  t.match(u.evidence.join('\n'), /host: an unnamed netns of pid 1034 python3: 172\.26\.64\.2\/20 on eth0/);
  const clean = judgeCheck(UNIQUE_IPS_AFTER_UPGRADE, { ...hidden, hostNetns: hidden.hostNetns!.slice(0, 2) });
  t.equal(clean.status, 'passed');
  t.match(clean.message, /on the client host every address is held by one network namespace \(2 with addresses\)/);
});

t.test(
  'the real v1.9.3 -> v1.9.5 capture: unique-ips fails on the host view, state-agrees passes, state-migrated fails',
  async (t) => {
    const { parseCniListing } = await import('../../lib/cluster/parse-cni-listing.js');
    const { parseHostNetns } = await import('../../lib/parse/host-observe.js');
    const R = new URL('../fixtures/nomad/real-upgrade-1.9.3-to-1.9.5/', import.meta.url);
    const read = (p: string) => readFileSync(new URL(p, R), 'utf8');
    const e: UpgradeEvidence = {
      mode: 'upgrade',
      before: JSON.parse(read('allocs-before.json')) as AllocSnap[],
      after: JSON.parse(read('allocs-after.json')) as AllocSnap[],
      cniAfter: parseCniListing(read('cni-listing-after.txt')),
      clientLog: [],
      hostNetns: parseHostNetns(read('host-netns-after.txt')),
    };
    const [u, s, m] = [UNIQUE_IPS_AFTER_UPGRADE, STATE_AGREES, STATE_MIGRATED].map((c) => judgeCheck(c, e));
    t.equal(u!.status, 'failed', u!.message);
    for (const ip of ['172.26.64.2', '172.26.64.3', '172.26.64.4'])
      t.match(
        u!.message,
        new RegExp(
          `${ip.replace(/\./g, '\\.')} is held by netns \\w{8} \\[pid \\d+ python3\\] and an unnamed netns of pid \\d+ python3 \\(client host\\)`,
        ),
      );
    t.notMatch(u!.message, /\(API\)/, 'the API showed no collision');
    t.equal(s!.status, 'passed', s!.message);
    t.equal(m!.status, 'failed');
    t.match(m!.message, /still exists \(3 reservation\(s\)\)/);
    t.same(
      judgeCheck(UNIQUE_IPS_AFTER_UPGRADE, { ...e, hostNetns: undefined }).status,
      'passed',
      'without the host view the collision would have been missed',
    );
  },
);
