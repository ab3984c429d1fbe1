// The Nomad API stand-in's several-server and Nomad-service answers (test/helpers/fake-nomad/servers.ts, nodes.ts,
// whole-alloc.ts; NOT Nomad) against REAL captures of three servers and a client of every supported line
// (test/fixtures/nomad/real-<version>/cluster/, recorded by record/record-cluster.sh): what servers-agree reads of each
// server with stale=true, the Serf members, a server stopped (pruned by autopilot, then back as a non-voter until it
// is stable), and a Nomad-native service with its check. Key sets, JSON types and the X-Nomad query headers; where
// the stand-in serves fewer keys on purpose (the list stubs: the keys servers-agree reads), each one it serves is a
// real key with the real type.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { call, keys, sleep, typeOf, type Obj } from '../helpers/fake-nomad-call.js';
import { startFakeNomad, type FakeNomad } from '../helpers/fake-nomad/index.js';
import { SERVER_HEADER } from '../helpers/fake-nomad/servers.js';

const FIX = new URL('../fixtures/nomad/', import.meta.url);
const LINES = ['1.9.7', '1.10.5', '1.11.3', '2.0.5'] as const;
const SERVERS = ['server-1', 'server-2', 'server-3'] as const;
/** The lists servers-agree reads of each server (lib/nomad/client.ts SERVER_LIST_PATHS). */
const LISTS = ['jobs', 'allocations', 'nodes', 'deployments', 'vars'] as const;
const JOB = readFileSync(new URL('record/service-check.nomad.hcl', FIX), 'utf8');
const STEP = 25;

const at = (v: string, rel: string) => new URL(`real-${v}/cluster/${rel}`, FIX);
const real = (v: string, rel: string): unknown => JSON.parse(readFileSync(at(v, `${rel}.json`), 'utf8'));
const note = (v: string, rel: string) => readFileSync(at(v, rel), 'utf8').trim();
/** The X-Nomad-* header names of a recorded reply, lower case, sorted. */
const realHeaders = (v: string, rel: string) =>
  readFileSync(at(v, `${rel}.headers.txt`), 'utf8')
    .split(/\r?\n/)
    .flatMap((l) => /^(x-nomad-[^:]+):/i.exec(l)?.[1]?.toLowerCase() ?? [])
    .sort();
const nomadHeaders = (h: Headers) => [...h.keys()].filter((k) => k.startsWith('x-nomad-')).sort();
/** Each key's JSON type, of the keys in `only` when given. */
const types = (o: unknown, only?: string[]) =>
  Object.fromEntries(
    keys(o)
      .filter((k) => !only || only.includes(k))
      .map((k) => [k, typeOf((o as Obj)[k])]),
  );

/** One GET as the named server answers it (the stand-in env's per-server clients send the same header). */
async function asServer(f: FakeNomad, server: string, path: string) {
  const r = await fetch(f.addr + path, { headers: { [SERVER_HEADER]: server } });
  return { status: r.status, headers: r.headers, body: JSON.parse(await r.text()) as unknown };
}

/** The stand-in as `version` with three servers and the recording's service job running with its check passing. */
async function standIn(t: Test, version: string) {
  const f = await startFakeNomad({
    timeline: 'restored',
    clientNodeName: 'client-1',
    nomadVersion: version,
    stepMs: STEP,
  });
  t.teardown(() => f.close());
  f.servers.names.push('server-2', 'server-3');
  const parse = await call(f, '/v1/jobs/parse', {
    method: 'POST',
    body: JSON.stringify({ JobHCL: JOB, Canonicalize: true }),
  });
  await call(f, '/v1/jobs', {
    method: 'POST',
    body: JSON.stringify({ Job: parse.body, Submission: { Source: JOB, Format: 'hcl2' } }),
  });
  const end = Date.now() + 5000;
  for (;;) {
    const allocs = (await call(f, '/v1/job/service-check/allocations')).body as Obj[];
    const run = allocs.find((a) => a.ClientStatus === 'running');
    if (run) return { f, alloc: String(run.ID) };
    if (Date.now() > end) throw new Error(`stand-in ${version}: the service alloc never ran`);
    await sleep(STEP);
  }
}

for (const v of LINES) {
  t.test(`${v}: the recording is of this line, and of three servers and a client`, async (t) => {
    t.match(note(v, 'nomad-version.txt'), new RegExp(`^Nomad v${v.replaceAll('.', '\\.')}\\b`));
    const m = real(v, 'initial/server-1/agent-members') as { Members: Obj[] };
    t.same(m.Members.map((x) => x.Name).sort(), ['server-1.global', 'server-2.global', 'server-3.global']);
    t.equal((real(v, 'initial/server-1/nodes-stale') as unknown[]).length, 1, 'one client node');
  });

  t.test(`${v}: each server's own view (stale reads) has the real shapes`, async (t) => {
    const { f } = await standIn(t, v);
    const names = f.servers.names;
    for (const [i, server] of SERVERS.entries()) {
      const own = names[i]!;
      const dir = `initial/${server}`;
      // agent/self: the Raft stats servers-agree reads are strings, and every stat the stand-in serves is a real one
      const self = await asServer(f, own, '/v1/agent/self');
      const rs = (real(v, `${dir}/agent-self`) as { stats: { raft: Obj } }).stats.raft;
      const ss = (self.body as { stats: { raft: Obj } }).stats.raft;
      for (const k of ['last_log_index', 'last_log_term', 'applied_index', 'state', 'term', 'commit_index'])
        t.same([typeOf(rs[k]), typeOf(ss[k])], ['string', 'string'], `${server} agent/self stats.raft.${k}: a string`);
      t.same(
        keys(ss).filter((k) => !(k in rs)),
        [],
        `${server} agent/self: every Raft stat the stand-in serves is in the real stats`,
      );
      t.same(nomadHeaders(self.headers), realHeaders(v, `${dir}/agent-self`), `${server} agent/self: X-Nomad headers`);
      // the Raft configuration, as that server holds it
      const raft = await asServer(f, own, '/v1/operator/raft/configuration?stale=true');
      const rr = real(v, `${dir}/raft-configuration-stale`) as { Servers: Obj[]; Index: number };
      const sr = raft.body as { Servers: Obj[]; Index: number };
      t.same(keys(sr), keys(rr), `${server} raft configuration: key set`);
      t.equal(sr.Index, rr.Index, `${server} raft configuration: Index (${rr.Index}, as real Nomad sends it)`);
      t.equal(sr.Servers.length, rr.Servers.length, `${server} raft configuration: three servers`);
      t.same(types(sr.Servers[0]), types(rr.Servers[0]), `${server} raft configuration: a server's keys and types`);
      t.same(
        nomadHeaders(raft.headers),
        realHeaders(v, `${dir}/raft-configuration-stale`),
        `${server} raft configuration: X-Nomad headers`,
      );
      // the keyring
      const ring = await asServer(f, own, '/v1/operator/keyring/keys?stale=true');
      const rk = real(v, `${dir}/keyring-keys-stale`) as Obj[];
      t.same(types((ring.body as Obj[])[0]), types(rk[0]), `${server} keyring: a key's keys and types`);
      t.same(
        nomadHeaders(ring.headers),
        realHeaders(v, `${dir}/keyring-keys-stale`),
        `${server} keyring: X-Nomad headers`,
      );
      // the lists: the keys servers-agree reads, each a real key of the real type
      for (const list of LISTS) {
        const got = await asServer(f, own, `/v1/${list}?stale=true`);
        const rl = real(v, `${dir}/${list}-stale`) as Obj[];
        t.equal(typeOf(got.body), 'array', `${server} ${list}: a list`);
        t.same(nomadHeaders(got.headers), realHeaders(v, `${dir}/${list}-stale`), `${server} ${list}: X-Nomad headers`);
        const first = (got.body as Obj[])[0];
        if (!rl.length || !first) {
          t.same([rl.length, (got.body as unknown[]).length], [0, 0], `${server} ${list}: empty in both`);
          continue;
        }
        const served = keys(first);
        t.same(
          served.filter((k) => !(k in rl[0]!)),
          [],
          `${server} ${list}: every key the stand-in serves is a real key`,
        );
        t.same(types(first), types(rl[0], served), `${server} ${list}: the served keys' types`);
        for (const k of ['ID', 'ModifyIndex'])
          t.ok(served.includes(k) || list === 'vars', `${server} ${list}: serves ${k} (servers-agree reads it)`);
      }
    }
  });

  t.test(`${v}: the Serf members and the leader's Raft configuration have the real shapes`, async (t) => {
    const { f } = await standIn(t, v);
    const m = (await call(f, '/v1/agent/members')).body as { Members: Obj[] };
    const rm = real(v, 'initial/server-1/agent-members') as { Members: Obj[] };
    t.same(keys(m), keys(rm), 'members: key set');
    t.same(types(m.Members[0]), types(rm.Members[0]), 'a member: keys and types');
    // one server bootstraps alone ("bootstrap": "1"); a server of three has only "expect": "3"
    const tags = (x: Obj) => keys(x.Tags).filter((k) => k !== 'bootstrap');
    t.same(tags(m.Members[0]!), tags(rm.Members[0]!), "a member's Serf tags, but the bootstrap tag of one server");
    t.equal((rm.Members[0]!.Tags as Obj).expect, '3');
    const raft = await call(f, '/v1/operator/raft/configuration');
    const rr = real(v, 'initial/raft-configuration') as { Servers: Obj[]; Index: number };
    t.same(keys(raft.body), keys(rr), 'raft configuration: key set');
    t.equal((raft.body as { Index: number }).Index, rr.Index, 'raft configuration: Index');
    t.same(types((raft.body as { Servers: Obj[] }).Servers[0]), types(rr.Servers[0]), "a server's keys and types");
    t.same(nomadHeaders(raft.headers), realHeaders(v, 'initial/raft-configuration'), 'X-Nomad headers');
  });

  t.test(
    `${v}: a server stopped is pruned, and back as a non-voter until it is stable, as the stand-in has it`,
    async (t) => {
      // the real sequence: stopped (Serf failed), pruned by autopilot on its 10 s reconcile (so the first read after
      // the stop finds it still a voter or already gone, by the tick's phase: never a non-voter), listed again as a
      // non-voter once started, a voter once stable (server_stabilization_time, 10 s)
      const stopped = note(v, 'leader-stopped/stopped.txt');
      const entry = (r: { Servers: Obj[] }) => r.Servers.find((s) => String(s.Node).startsWith(`${stopped}.`));
      const down = entry(real(v, 'leader-stopped/raft-configuration') as { Servers: Obj[] });
      t.not(down?.Voter, false, `while down: ${down ? 'still a voter' : 'already pruned'}, never a non-voter`);
      const other = SERVERS.find((s) => s !== stopped)!;
      const members = real(v, `leader-stopped/${other}/agent-members`) as { Members: Obj[] };
      t.equal(members.Members.find((x) => String(x.Name).startsWith(`${stopped}.`))?.Status, 'failed', 'Serf: failed');
      t.notMatch(note(v, 'leader-pruned/pruned-after-s.txt'), /not pruned/, 'pruned while down');
      t.equal(entry(real(v, 'leader-pruned/raft-configuration') as { Servers: Obj[] }), undefined, 'pruned: no entry');
      const [first] = note(v, 'leader-back/first-listed.txt').split(' ');
      t.equal(first, 'nonvoter', 'back: first listed as a non-voter');
      t.equal(entry(real(v, 'leader-back/raft-configuration-first') as { Servers: Obj[] })?.Voter, false);
      const voterAfter = Number(note(v, 'leader-back/voter-after-s.txt'));
      t.ok(voterAfter >= 10 && voterAfter < 30, `a voter ${voterAfter} s after its start (stabilization 10 s)`);
      t.equal(entry(real(v, 'leader-back/raft-configuration') as { Servers: Obj[] })?.Voter, true, 'then a voter');
      // the stand-in (one server): back from its host's reboot a non-voter, a voter after its 100 steps
      const { f } = await standIn(t, v);
      f.serverDown();
      f.serverUp();
      const voter = async () => {
        const r = await call(f, '/v1/operator/raft/configuration').catch(() => undefined);
        return r?.status === 200 ? ((r.body as { Servers: Obj[] }).Servers[0]?.Voter as boolean) : undefined;
      };
      let seen: boolean | undefined;
      const end = Date.now() + 3000;
      while (seen === undefined && Date.now() < end) {
        seen = await voter();
        if (seen === undefined) await sleep(STEP);
      }
      t.equal(seen, false, 'the stand-in: back as a non-voter');
      const until = Date.now() + 200 * STEP;
      while ((await voter()) !== true && Date.now() < until) await sleep(STEP);
      t.equal(await voter(), true, 'the stand-in: then a voter');
    },
  );

  t.test(`${v}: a Nomad-native service and its check have the real shapes`, async (t) => {
    const { f, alloc } = await standIn(t, v);
    const svc = await call(f, '/v1/service/rec-web');
    const rs = real(v, 'initial/service') as Obj[];
    t.equal((svc.body as Obj[]).length, rs.length, 'one registration per alloc');
    t.same(types((svc.body as Obj[])[0]), types(rs[0]), 'a registration: keys and types');
    t.same((svc.body as Obj[])[0]!.Tags, rs[0]!.Tags, "the job's tags");
    t.match(String((svc.body as Obj[])[0]!.ID), /^_nomad-task-[0-9a-f-]{36}-group-web-rec-web-http$/);
    t.match(String(rs[0]!.ID), /^_nomad-task-[0-9a-f-]{36}-group-web-rec-web-http$/, 'the same ID form as real');
    t.same(nomadHeaders(svc.headers), realHeaders(v, 'initial/service'), 'service: X-Nomad headers');
    const checks = await call(f, `/v1/client/allocation/${alloc}/checks`);
    const rc = Object.values(real(v, 'initial/alloc-checks') as Obj);
    const sc = Object.values(checks.body as Obj);
    t.equal(sc.length, rc.length, 'one check');
    t.same(types(sc[0]), types(rc[0]), 'a check result: keys and types');
    // an md5 before 2.0.5, a sha256 from it (nomad@3869aec9a5)
    const digits = String((rc[0] as Obj).ID).length;
    t.equal(digits, v === '2.0.5' ? 64 : 32, `the real check ID: ${digits} hex digits`);
    t.match(String((sc[0] as Obj).ID), new RegExp(`^[0-9a-f]{${digits}}$`), 'the stand-in: the same form');
    t.same(
      [(sc[0] as Obj).Mode, (sc[0] as Obj).Status, (sc[0] as Obj).StatusCode],
      [(rc[0] as Obj).Mode, (rc[0] as Obj).Status, (rc[0] as Obj).StatusCode],
      'mode, status and HTTP code of a passing HTTP check',
    );
    t.same(nomadHeaders(checks.headers), realHeaders(v, 'initial/alloc-checks'), 'checks: X-Nomad headers');
    // /v1/services is not served: the harness never reads it (lib/nomad/client.ts asks /v1/service/:name)
    t.equal((await call(f, '/v1/services')).status, 404);
  });
}
