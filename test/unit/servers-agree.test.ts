// servers-agree (lib/checks/servers-agree.ts) on recorded per-server reads: three servers equal, one lagging (an older
// applied index and term), one diverged at the same index (an alloc missing from its state store), different voters,
// a keyring not ready; and the payload readers of lib/nomad/server-state.ts on the shapes Nomad answers.
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { ServerRead, ServersRead } from '../../lib/model/sentinels.js';
import type { ApiAgentSelf } from '../../lib/nomad/api-types.js';
import { judgeCheck } from '../../lib/checks/define.js';
import { compareServers, SERVERS_AGREE } from '../../lib/checks/servers-agree.js';
import { keyringState, raftStats, readServerState, stubLines, votersOf } from '../../lib/nomad/server-state.js';
import { createNomad } from '../../lib/nomad/client.js';
import { buildPath, type TransportResponse } from '../../lib/nomad/transport.js';

const VOTERS = ['server-1.global', 'server-2.global', 'server-3.global'];
const STATE = {
  jobs: ['default/web 120'],
  allocs: ['default/0b4ee2a9-5d1c-7a02-13c4-8b1e0c1d2f31 131', 'default/73c563bc-1f3a-e380-4574-4b006d1e7bdb 131'],
  nodes: ['5f0a7c2e-9b1d-4c3e-8f2a-1d2e3f4a5b6c 118', '9c1b2a3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d 119'],
  deployments: ['default/d1b2c3e4-0000-4000-8000-000000000001 127'],
  variables: [],
};
const read = (server: string, o: Partial<ServerRead> = {}): ServerRead => ({
  server,
  atMs: 1,
  voters: VOTERS,
  lastIndex: 131,
  lastTerm: 3,
  appliedIndex: 131,
  appliedIndexAfter: 131,
  keyring: { ready: true, detail: '2f1e5a9c active' },
  state: STATE,
  errors: [],
  ...o,
});
const judge = (reads: ServerRead[]) =>
  judgeCheck(SERVERS_AGREE, {
    sentinels: {
      watchFromMs: 0,
      agents: [],
      faults: [],
      logRules: { never: [], allowed: [] },
      servers: { reads, rounds: 3, boundMs: 60_000, when: 'end of the run' } satisfies ServersRead,
    },
  });

t.test('equal: same voters, term, index and state on every server', async (t) => {
  const c = compareServers([read('server-1'), read('server-2'), read('server-3')]);
  t.equal(c.verdict, 'equal');
  const r = judge([read('server-1'), read('server-2'), read('server-3')]);
  t.equal(r.status, 'passed');
  t.match(r.message, /end of the run: 3 servers read, 3 rounds within 60s; the servers agree/);
  t.match(
    r.evidence[1],
    /^server-2: voters \[server-1.global, server-2.global, server-3.global\] term 3 last index 131 applied 131; keyring ready; jobs 1, allocs 2, nodes 2/,
  );
});

t.test('lagging: a server behind in index and term after the bound', async (t) => {
  const behind = read('server-3', {
    lastIndex: 118,
    lastTerm: 2,
    appliedIndex: 118,
    appliedIndexAfter: 118,
    state: { ...STATE, allocs: [] },
  });
  const c = compareServers([read('server-1'), read('server-2'), behind]);
  t.equal(c.verdict, 'lagging', 'a different index is lag, not divergence: its state is not compared');
  t.match(c.reasons.join('\n'), /applied indexes differ: server-1, server-2: 131 vs server-3: 118/);
  t.match(c.reasons.join('\n'), /Raft terms differ/);
  const r = judge([read('server-1'), behind]);
  t.equal(r.status, 'failed');
  t.match(r.message, /^lagging: /);
  const moving = read('server-2', { appliedIndexAfter: 132 });
  t.equal(compareServers([read('server-1'), moving]).verdict, 'lagging', 'still applying during its reads');
});

t.test('diverged: an alloc missing at the same applied index, side by side', async (t) => {
  const lacks = read('server-2', { state: { ...STATE, allocs: STATE.allocs.slice(1) } });
  const c = compareServers([read('server-1'), lacks, read('server-3')]);
  t.equal(c.verdict, 'diverged');
  t.same(c.reasons, ['allocs differ at applied index 131']);
  t.ok(c.lines.includes('  allocs: 1 object not held alike'));
  t.ok(
    c.lines.includes(
      '    default/0b4ee2a9-5d1c-7a02-13c4-8b1e0c1d2f31 131: server-1 has, server-2 lacks, server-3 has',
    ),
  );
  const r = judge([read('server-1'), lacks]);
  t.equal(r.status, 'failed');
  t.match(r.message, /^diverged: allocs differ at applied index 131/);
});

t.test('diverged: voters differ; a keyring not ready', async (t) => {
  const two = read('server-3', { voters: VOTERS.slice(0, 2) });
  t.match(compareServers([read('server-1'), two]).reasons[0], /Raft voters differ/);
  const nokeys = read('server-2', { keyring: { ready: false, detail: 'no keys listed' } });
  const c = compareServers([read('server-1'), nokeys]);
  t.equal(c.verdict, 'diverged');
  t.match(c.reasons[0], /server-2: keyring not ready \(no keys listed\)/);
  t.equal(compareServers([nokeys]).verdict, 'diverged', 'one server: the keyring still counts');
});

t.test('unreadable: a server that did not answer a read', async (t) => {
  const gone = read('server-2', { errors: ['/v1/agent/self: connect ECONNREFUSED 127.0.0.1:4646'] });
  const c = compareServers([read('server-1'), gone]);
  t.equal(c.verdict, 'unreadable');
  t.equal(judge([read('server-1'), gone]).status, 'failed');
  t.equal(judgeCheck(SERVERS_AGREE, {}).status, 'skipped', 'not read at all');
});

t.test('payload readers: the Raft stats of /v1/agent/self, voters, keys, stubs', async (t) => {
  const self = JSON.parse(
    readFileSync(new URL('../fixtures/nomad/agent-self-server.json', import.meta.url), 'utf8'),
  ) as ApiAgentSelf;
  t.same(raftStats(self), { lastIndex: 45, appliedIndex: 45 }, 'the recorded 1.9 payload has no last_log_term');
  self.stats['raft'] = { ...self.stats['raft'], last_log_term: '3' };
  t.equal(raftStats(self).lastTerm, 3);
  t.same(
    votersOf({
      Index: 1,
      Servers: [
        { ID: 'b', Node: 'server-2.global', Address: 'x', Leader: false, Voter: true },
        { ID: 'c', Node: 'server-3.global', Address: 'y', Leader: false, Voter: false },
        { ID: 'a', Node: 'server-1.global', Address: 'z', Leader: true, Voter: true },
      ],
    }),
    ['server-1.global', 'server-2.global'],
  );
  t.same(keyringState([]), { ready: false, detail: 'no keys listed' });
  t.equal(keyringState([{ KeyID: '2f1e5a9c-3b7d', State: 'active' }]).ready, true);
  t.same(
    stubLines([
      { ID: 'b', Namespace: 'default', ModifyIndex: 2 },
      { Path: 'nomad/jobs/a', Namespace: 'default', ModifyIndex: 9 },
      { ID: 'n1', ModifyIndex: 4 },
    ]),
    ['default/b 2', 'default/nomad/jobs/a 9', 'n1 4'],
  );
});

t.test(
  'the reads: stale=true, every namespace, each list from its own path; one failed read recorded, not thrown',
  async (t) => {
    const seen: string[] = [];
    const nomad = createNomad({
      transport: async (req): Promise<TransportResponse> => {
        seen.push(buildPath(req.path, req.query));
        if (req.path === '/v1/operator/keyring/keys') return { status: 403, headers: {}, body: 'Permission denied' };
        const body =
          req.path === '/v1/agent/self'
            ? { stats: { raft: { applied_index: '7', last_log_index: '7', last_log_term: '2' } } }
            : req.path.includes('raft')
              ? { Index: 7, Servers: [] }
              : [];
        return { status: 200, headers: { 'x-nomad-index': '7' }, body: JSON.stringify(body) };
      },
    });
    const r = await readServerState(nomad, 'server-2', AbortSignal.timeout(5000));
    t.same(seen, [
      '/v1/agent/self',
      '/v1/operator/raft/configuration?stale=true',
      '/v1/operator/keyring/keys?stale=true',
      '/v1/jobs?namespace=*&stale=true',
      '/v1/allocations?namespace=*&stale=true',
      '/v1/nodes?stale=true',
      '/v1/deployments?namespace=*&stale=true',
      '/v1/vars?namespace=*&stale=true',
      '/v1/agent/self',
    ]);
    t.match(r, { server: 'server-2', appliedIndex: 7, appliedIndexAfter: 7, lastTerm: 2, voters: [] });
    t.equal(r.keyring, undefined);
    t.match(r.errors, [/^\/v1\/operator\/keyring\/keys: .*403/]);
  },
);

t.test('every read of the run is judged: one after a fault on a server, then the end', async (t) => {
  const after = (reads: ServerRead[], when: string): ServersRead => ({ reads, rounds: 4, boundMs: 60_000, when });
  const judgeAll = (afterFaults: ServersRead[], end: ServerRead[]) =>
    judgeCheck(SERVERS_AGREE, {
      sentinels: {
        watchFromMs: 0,
        agents: [],
        faults: [],
        logRules: { never: [], allowed: [] },
        serversAfterFaults: afterFaults,
        servers: { reads: end, rounds: 1, boundMs: 60_000, when: 'end of the run' },
      },
    });
  const equal = [read('server-1'), read('server-2'), read('server-3')];
  const ok = judgeAll([after(equal, 'after leader-partition of server-1 (wave 1)')], equal);
  t.equal(ok.status, 'passed');
  t.match(ok.message, /the servers agree; so they did right after the fault on a server$/);
  t.match(ok.evidence.join('\n'), /^after leader-partition of server-1 \(wave 1\): 3 servers read, 4 rounds/m);
  // a server that came back behind and caught up later: the end agrees, the read after its fault did not
  const behind = [
    read('server-1'),
    read('server-2', { appliedIndex: 120, appliedIndexAfter: 120, lastTerm: 2 }),
    read('server-3'),
  ];
  const late = judgeAll([after(behind, 'after graceful of server-2 (wave 1)')], equal);
  t.equal(late.status, 'failed', 'a disagreement after a fault is not hidden by a later agreement');
  t.match(late.message, /^after graceful of server-2 \(wave 1\): lagging: /);
  t.notMatch(late.message, /end of the run/, 'the end, which agreed, is not named as a failure');
});
