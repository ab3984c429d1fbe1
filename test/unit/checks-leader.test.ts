// The leader across a server's fault: the answers of /v1/status/leader read back to machines (leader-watch.ts), the
// first new leader after the fault (leader.ts), and the checks new-leader and old-leader-rejoined.
import t from 'tap';
import { electedAfter } from '../../lib/checks/leader.js';
import { leaderOf } from '../../lib/steps/leader-watch.js';
import { judgeCheck } from '../../lib/checks/define.js';
import { NEW_LEADER } from '../../lib/checks/new-leader.js';
import { OLD_LEADER_REJOINED } from '../../lib/checks/old-leader-rejoined.js';
import type { ClusterEvidence, LeaderSeen } from '../../lib/model/cluster-evidence.js';

const T0 = 1_760_000_000_000;
const members = [1, 2, 3].map((i) => ({ Name: `server-${i}.global`, Addr: `10.199.0.1${i}`, Tags: { port: '4647' } }));
const servers = ['server-1', 'server-2', 'server-3'];

t.test('leaderOf: a JSON string read back to a machine; "" none; anything else no answer', async (t) => {
  t.equal(leaderOf({ code: 0, stdout: '"10.199.0.12:4647"\n' }, members, servers), 'server-2');
  t.equal(leaderOf({ code: 0, stdout: '""' }, members, servers), '');
  t.equal(leaderOf({ code: 7, stdout: '' }, members, servers), '?');
  t.equal(leaderOf({ code: 0, stdout: 'No cluster leader' }, members, servers), '?');
  t.equal(leaderOf({ code: 0, stdout: '"10.9.9.9:4647"' }, members, servers), '10.9.9.9:4647', 'unknown: the address');
  t.equal(
    leaderOf({ code: 0, stdout: '"10.9.9.9:4647"' }, members, servers, { 'server-3': ['192.168.121.5', '10.9.9.9'] }),
    'server-3',
    "by the machines' own addresses",
  );
});

// server-1 led; its reboot requested at T0, back at T0+40s; server-3 asked every second
const observed: LeaderSeen['observed'] = [
  { atMs: T0 - 1000, leader: 'server-1', from: 'server-3' },
  { atMs: T0 + 1000, leader: 'server-1', from: 'server-3' },
  { atMs: T0 + 2000, leader: '', from: 'server-3' },
  { atMs: T0 + 6000, leader: 'server-2', from: 'server-3' },
  { atMs: T0 + 41_000, leader: 'server-2', from: 'server-3' },
];

t.test('electedAfter: another server after the request; with one server, any leader after its return', async (t) => {
  t.same(electedAfter(observed, 'server-1', false, T0, T0 + 40_000), { leader: 'server-2', afterMs: 6000 });
  const single = [
    { atMs: T0 + 1000, leader: '?', from: 'client-1' },
    { atMs: T0 + 30_500, leader: '', from: 'client-1' },
    { atMs: T0 + 32_000, leader: 'server', from: 'client-1' },
  ];
  t.same(electedAfter(single, 'server', true, T0, T0 + 30_000), { leader: 'server', afterMs: 2000 });
  t.equal(electedAfter(observed.slice(0, 3), 'server-1', false, T0, T0 + 40_000), undefined, 'still the old one');
});

const evidence = (leader: LeaderSeen | undefined): ClusterEvidence => ({
  topology: '3+2',
  jobId: 'web',
  expectedAllocs: 2,
  nodeNames: {},
  turns: [],
  disruptionIndex: 0,
  before: [],
  after: [],
  drain: false,
  maxGapMs: 0,
  ...(leader ? { leader } : {}),
});
const seen = (o: Partial<LeaderSeen>): LeaderSeen => ({
  before: 'server-1',
  elected: 'server-2',
  electedAfterMs: 6000,
  boundMs: 30_000,
  oldRejoined: true,
  oldState: 'Serf alive, a Raft voter',
  single: false,
  observed,
  ...o,
});

t.test('new-leader: within the bound passes, past it or none fails, no leader hit skips', async (t) => {
  const ok = judgeCheck(NEW_LEADER, evidence(seen({})));
  t.equal(ok.status, 'passed');
  t.match(ok.message, /server-2 led 6\.0s after the fault \(bound 30\.0s; was server-1\)/);
  t.match(ok.evidence.join('\n'), /from server-3: server-1\n.*from server-3: no leader\n.*from server-3: server-2/);
  const late = judgeCheck(NEW_LEADER, evidence(seen({ boundMs: 5000 })));
  t.equal(late.status, 'failed');
  t.match(late.message, /server-2 led only 6\.0s after the fault, past the bound of 5\.0s/);
  const none = seen({});
  delete none.elected;
  delete none.electedAfterMs;
  t.match(
    judgeCheck(NEW_LEADER, evidence(none)).message,
    /no other leader seen after the fault \(old leader server-1\)/,
  );
  t.equal(judgeCheck(NEW_LEADER, evidence(undefined)).status, 'skipped');
});

t.test('old-leader-rejoined: alive and a voter passes; otherwise fails naming what was seen', async (t) => {
  t.equal(judgeCheck(OLD_LEADER_REJOINED, evidence(seen({}))).status, 'passed');
  const r = judgeCheck(
    OLD_LEADER_REJOINED,
    evidence(seen({ oldRejoined: false, oldState: 'Serf failed, no Raft peer' })),
  );
  t.equal(r.status, 'failed');
  t.match(r.message, /server-1 did not rejoin: Serf failed, no Raft peer/);
  t.equal(judgeCheck(OLD_LEADER_REJOINED, evidence(undefined)).status, 'skipped');
});
