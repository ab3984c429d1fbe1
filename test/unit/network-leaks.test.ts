// The leak check (no-leaks) and the host view of addresses, over recorded samples: parseNetState / parseHostNetns on
// real output, the no-leaks check on real and edited evidence, hostAddressConflicts on the shape of the real 1.9.5 collision.
import t from 'tap';
import { judgeCheck } from '../../lib/checks/define.js';
import { readFileSync } from 'node:fs';
import { parseHostNetns, parseNetState } from '../../lib/parse/host-observe.js';
import { NO_LEAKS } from '../../lib/checks/no-leaks.js';
import { describeNetns, hostAddressConflicts } from '../../lib/checks/host-addresses.js';
import type { RebootEvidence } from '../../lib/model/evidence.js';

const fixture = (p: string) => readFileSync(new URL(`../fixtures/${p}`, import.meta.url), 'utf8');
const evidence = (name: string): RebootEvidence => JSON.parse(fixture(`checks/${name}.json`)) as RebootEvidence;

t.test('parseNetState on the real upgrade capture: 6 alloc namespaces, 9 veths on bridge nomad', async (t) => {
  const s = parseNetState(fixture('observe/net-state-real-upgrade-1.9.3-to-1.9.5.txt'));
  t.equal(s.netns.length, 6);
  t.ok(
    s.netns.every((n) => /^[0-9a-f-]{36}$/.test(n)),
    'every name is an alloc ID',
  );
  t.equal(s.veths.length, 9);
  t.ok(s.veths.every((v) => v.master === 'nomad' && /^veth[0-9a-f]{8}$/.test(v.name)));
  t.same(parseNetState('---\n'), { netns: [], veths: [] }, 'nothing at all');
  t.same(
    parseNetState('---\n7: vethab@if2: <BROADCAST> mtu 1500 qdisc noop state DOWN mode DEFAULT\n').veths,
    [{ name: 'vethab', master: undefined }],
    'a veth on no bridge',
  );
});

t.test('no-leaks: passes on a restored alloc, fails on each kind of leftover, skips without the state', async (t) => {
  const ok = judgeCheck(NO_LEAKS, evidence('restored'));
  t.equal(ok.status, 'passed', ok.message);
  const dup = judgeCheck(NO_LEAKS, evidence('duplicate-ip'));
  t.equal(
    dup.status,
    'failed',
    'as on real 1.9.3 right after the failed restore: the stale reservation is still there',
  );
  t.match(
    dup.message,
    /reservation 172\.26\.64\.69 in \/var\/lib\/cni\/networks\/nomad names 2976d256, which is not a live alloc/,
  );

  const e = evidence('restored');
  const live = e.after.nodeAllocs[0]!.id;
  const stale = 'deadbeef-0000-0000-0000-000000000000';
  const withRes = structuredClone(e);
  withRes.after.cniState[0]!.files['172.26.64.9'] = `${stale}\r\neth0`;
  t.match(judgeCheck(NO_LEAKS, withRes), {
    status: 'failed',
    message: /reservation 172\.26\.64\.9 in \/var\/run\/cni\/nomad names deadbeef, which is not a live alloc/,
  });

  const withNs = structuredClone(e);
  withNs.after.netState = { netns: [live, stale, 'cni-1234'], veths: [{ name: 'vethaaaa', master: 'nomad' }] };
  const r = judgeCheck(NO_LEAKS, withNs);
  t.match(r, { status: 'failed', message: /network namespace deadbeef-0000-0000-0000-000000000000 has no live alloc/ });
  t.notMatch(r.message, /cni-1234/, 'a namespace not named like an alloc is not judged');

  const real = structuredClone(e);
  real.after.netState = parseNetState(fixture('observe/net-state-real-upgrade-1.9.3-to-1.9.5.txt'));
  real.after.nodeAllocs = real.after.netState.netns.map((id) => ({ ...e.after.nodeAllocs[0]!, id }));
  real.after.cniState = [];
  t.match(judgeCheck(NO_LEAKS, real), { status: 'skipped' }, 'no host-local listing: skipped, not passed');
  real.after.cniState = [{ dir: '/var/run/cni/nomad', exists: true, files: {} }];
  t.match(
    judgeCheck(NO_LEAKS, real),
    { status: 'failed', message: /9 veths on bridge nomad for 6 live allocs/ },
    'the real orphaned veths are caught',
  );

  const none = structuredClone(e);
  delete none.after.netState;
  t.match(judgeCheck(NO_LEAKS, none), { status: 'skipped', message: /were not read/ });
});

const HOST = `N 4026532300 6969bc0b-d46e-e112-e05d-97247f423a31
A 4026532300 eth0 172.26.64.5/20
N 4026532301 85249532-8302-eddf-fa33-686a1d70ef41
A 4026532301 eth0 172.26.64.2/20
P 4026532200 1034 python3
A 4026532200 eth0@if5 172.26.64.2/20
P 4026532200 1035 python3
P 4026532301 1740 python3
garbage line
`;

t.test('parseHostNetns and hostAddressConflicts: an old task namespace and a new alloc on one address', async (t) => {
  const ns = parseHostNetns(HOST);
  t.equal(ns.length, 3);
  t.same(ns[2], {
    inode: '4026532200',
    names: [],
    pids: [
      { pid: 1034, comm: 'python3' },
      { pid: 1035, comm: 'python3' },
    ],
    addrs: [{ ifname: 'eth0', cidr: '172.26.64.2/20' }],
  });
  const live = new Set(['6969bc0b-d46e-e112-e05d-97247f423a31', '85249532-8302-eddf-fa33-686a1d70ef41']);
  t.same(hostAddressConflicts(ns, live), [
    {
      addr: '172.26.64.2',
      holders: ['netns 85249532 [pid 1740 python3]', 'an unnamed netns of pid 1034 python3, pid 1035 python3'],
    },
  ]);
  t.same(hostAddressConflicts(ns.slice(0, 2), live), [], 'distinct addresses: no conflict');
  t.equal(
    describeNetns({ inode: '1', names: ['aaaaaaaa-1'], pids: [], addrs: [] }, live),
    'netns aaaaaaaa (no live alloc)',
  );
  t.same(parseHostNetns(''), []);
});

t.test(
  "no-leaks is a consequence of the duplicate-IP failure only when the one leak is the failed alloc's own stale reservation",
  async (t) => {
    const { judgeAll } = await import('../../lib/checks/define.js');
    const { CHECKS } = await import('../../scenarios/bridge-exec-reboot.js');
    const rebootChecks = (e: RebootEvidence) => judgeAll(CHECKS, e);
    const { applyExpectations } = await import('../../lib/checks/verdict.js');
    const label = (e: RebootEvidence) =>
      applyExpectations(rebootChecks(e), { scenario: undefined, perCheck: { 'no-duplicate-ip': 'fail' } }).find(
        (v) => v.id === 'no-leaks',
      );
    t.match(label(evidence('duplicate-ip')), { label: 'expected failure', met: true });
    const more = evidence('duplicate-ip');
    more.after.netState = { netns: ['0b5e55ed-0000-4000-8000-000000000001'], veths: [] };
    t.match(
      label(more),
      { label: 'failed', met: false },
      'another leftover is not explained by the duplicate-IP failure',
    );
    const noDup = evidence('restored');
    noDup.after.cniState[0]!.files['172.26.64.9'] = `deadbeef-0000-0000-0000-000000000000\r\neth0`;
    t.match(
      applyExpectations(rebootChecks(noDup), { scenario: undefined, perCheck: {} }).find((v) => v.id === 'no-leaks'),
      { label: 'failed', met: false },
    );
  },
);
