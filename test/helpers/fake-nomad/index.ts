// A STAND-IN for the Nomad HTTP API, not Nomad. One loopback HTTP server (127.0.0.1, port 0) that
// answers Nomad's real routes with real-shaped payloads (built from test/fixtures/nomad/), a
// raft-like index with real blocking-query semantics, one server and one client node, and scripted
// timelines for what happens when the client host reboots. Tests that use it must say so.
import http from 'node:http';
import type { ApiNode } from '../../../lib/nomad/api-types.js';
import type { AddressInfo } from 'node:net';
import { CNI_OLD_DIR, Cluster } from './cluster.js';
import { OLD_STATE_TIMELINES, clientRestart } from './upgrade.js';
import { parseJobHcl } from './job-parse.js';
import { registerJob } from './jobs.js';
import { readJson, route, type Reply } from './routes.js';
import { OTHER_JOB, clientDown, clientUp, type Timeline } from './timelines.js';
import { dropStreams, serveEventStream, type StreamControl } from './events.js';
import { clientHeal, clientPartition } from './faults.js';
import { taskEvent } from './payloads.js';
import { SERVER_HEADER, serverRead, type StandInServers } from './servers.js';

export type { Timeline } from './timelines.js';
export { OTHER_JOB } from './timelines.js';
export { addClientNode } from './nodes.js';

export interface FakeNomadOptions {
  timeline: Timeline;
  clientNodeName: string;
  /** if set, requests without it get 403 "Permission denied" (a wrong one: "ACL token not found") */
  token?: string;
  /** default "1.9.7" */
  nomadVersion?: string;
  /** one step of the simulated client/server (pending -> running etc.); default 100 ms */
  stepMs?: number;
  /** the client host runs dockerd of this version: the node's docker driver is detected and healthy */
  dockerVersion?: string;
  /** event stream heartbeat interval; default 30 s as Nomad's */
  heartbeatMs?: number;
  /**
   * what the single server does after its host rebooted (serverUp): elect itself leader after two steps (default, as
   * a bootstrap_expect=1 server does), never elect a leader, or elect one while the client restarts every task
   */
  serverReboot?: ServerRebootEffect;
  /**
   * steps from the server host's return to its election (default 2, a one-server Raft electing itself at once); a test
   * that judges the leaderless window widens it, or under load the harness's first answer after the return may come
   * after the election and measure it as 1 ms
   */
  electionSteps?: number;
}

/** Which requests FakeNomad.failRequests answers with an error, and how. */
export interface FailRule {
  method?: string;
  path: RegExp;
  status: number;
  body: string;
  /** how many matching requests fail before the rule clears itself; default: all of them */
  times?: number;
}

/** See FakeNomadOptions.serverReboot. */
export type ServerRebootEffect = 'elects' | 'no-leader' | 'restarts-tasks';

export interface FakeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  hasToken: boolean;
  /** when it came (Unix ms) */
  atMs: number;
  /** not answered yet (a blocking query or the event stream while it is held) */
  open: boolean;
}

export interface FakeNomad {
  /** http://127.0.0.1:PORT */
  addr: string;
  /** the client host went down (reboot started): its agent stops heartbeating */
  clientDown(): void;
  /** the host booted again and the Nomad client agent started: apply the timeline */
  clientUp(): void;
  /** the client agent restarted without a reboot or drain (e.g. an in-place upgrade to `version`): apply the upgrade timelines */
  clientRestart(version?: string): void;
  /** a network partition cuts the client off the server (host and agent keep running); down after `downAfterMs` */
  clientPartition(downAfterMs: number): void;
  /** the partition heals */
  clientHeal(): void;
  /** the server host went down: every connection to the API drops (event streams too), new ones are cut at once */
  serverDown(): void;
  /** the server host is back: no leader ("" / 500 "No cluster leader") until it elects itself (serverReboot) */
  serverUp(): void;
  /** the client agent's journal lines since its last start (journalctl + hclog format) */
  clientLog(): string[];
  requests: FakeRequest[];
  /** cut every open /v1/event/stream connection (midLine: after half a frame); returns how many were open */
  dropEventStreams(o?: { midLine?: boolean }): number;
  /** how many /v1/event/stream connections are open now */
  openEventStreams(): number;
  /**
   * Answer matching requests with `status` and `body` (as a Nomad server does, e.g. 500 "No cluster leader"
   * around an election) for the next `times` of them (default: until cleared); returns a function that clears it
   */
  failRequests(rule: FailRule): () => void;
  /** the simulated cluster, for assertions that need more than the API shows */
  cluster: Cluster;
  /**
   * the servers a request may name (header x-stand-in-server, servers.ts): their names and the views a test bends
   * (one behind, one diverging, one without a keyring)
   */
  servers: StandInServers;
  close(): Promise<void>;
}

const OTHER_HCL = `job "${OTHER_JOB}" {\n  group "other" {\n    network {\n      mode = "bridge"\n      port "http" { to = 8080 }\n    }\n    task "other" {\n      driver = "exec"\n      config { command = "/bin/sleep" }\n    }\n  }\n}\n`;

/**
 * A healthy docker driver as the node shows it: the attribute names of Nomad's docker fingerprint
 * (nomad@v1.9.7:drivers/docker/fingerprint.go), values as on a bookworm host with docker.io.
 */
function dockerDriverInfo(version: string): NonNullable<ApiNode['Drivers']>[string] {
  return {
    Detected: true,
    Healthy: true,
    HealthDescription: 'Healthy',
    UpdateTime: new Date().toISOString(),
    Attributes: {
      'driver.docker': 'true',
      'driver.docker.version': version,
      'driver.docker.bridge_ip': '172.17.0.1',
      'driver.docker.os_type': 'linux',
      'driver.docker.runtimes': 'io.containerd.runc.v2,runc',
      'driver.docker.privileged.enabled': 'false',
      'driver.docker.volumes.enabled': 'false',
    },
  };
}

/** Start the stand-in on 127.0.0.1 with an ephemeral port. */
export async function startFakeNomad(o: FakeNomadOptions): Promise<FakeNomad> {
  const {
    timeline,
    clientNodeName,
    token,
    nomadVersion = '1.9.7',
    stepMs = 100,
    dockerVersion,
    heartbeatMs = 30_000,
  } = o;
  let server: http.Server;
  const serverHost = serverLifecycle(() => server, o.serverReboot ?? 'elects', o.electionSteps ?? 2);
  const cluster = new Cluster(clientNodeName, nomadVersion, stepMs);
  if (dockerVersion) cluster.node.Drivers = { ...cluster.node.Drivers, docker: dockerDriverInfo(dockerVersion) };
  if (OLD_STATE_TIMELINES.includes(timeline)) cluster.cniDir = CNI_OLD_DIR;
  const requests: FakeRequest[] = [];
  const streams: StreamControl = { open: new Set(), heartbeatMs };
  const failing: FailRule[] = [];
  const servers: StandInServers = { names: [cluster.serverName], views: new Map() };
  server = http.createServer((req, res) => {
    if (serverHost.state === 'down') return void req.socket.destroy();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const sent = req.headers['x-nomad-token'] ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const rec: FakeRequest = {
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      hasToken: sent !== undefined,
      atMs: Date.now(),
      open: true,
    };
    requests.push(rec);
    let ended = () => {};
    const closed = { closed: false, whenClosed: new Promise<void>((r) => (ended = r)) };
    res.on('close', () => {
      closed.closed = true;
      rec.open = false;
      ended();
    });
    const answer = (r: Reply) => {
      res.writeHead(r.status, { 'content-type': 'text/plain; charset=utf-8', vary: 'Accept-Encoding', ...r.headers });
      res.end(r.body);
    };
    if (serverHost.state === 'electing') return answer(noLeader(url.pathname));
    const rule = failing.find((f) => (!f.method || f.method === req.method) && f.path.test(url.pathname));
    if (rule) {
      if (rule.times !== undefined && --rule.times <= 0) failing.splice(failing.indexOf(rule), 1);
      return answer({ status: rule.status, body: rule.body });
    }
    const named = req.headers[SERVER_HEADER];
    if (typeof named === 'string' && req.method === 'GET') {
      const own = serverRead(cluster, servers, named, url.pathname);
      if (own && token && sent !== token)
        return answer({ status: 403, body: sent === undefined ? 'Permission denied' : 'ACL token not found' });
      if (own) return answer(own);
    }
    const stream = url.pathname === '/v1/event/stream';
    const found = stream ? undefined : route(req.method ?? '', url.pathname);
    if (found && !('handler' in found)) return answer(found);
    if (token && !url.pathname.startsWith('/v1/status/')) {
      if (sent === undefined) return answer({ status: 403, body: 'Permission denied' });
      if (sent !== token) return answer({ status: 403, body: 'ACL token not found' });
    }
    if (stream)
      return req.method === 'GET'
        ? serveEventStream(cluster, url.searchParams, res, streams)
        : answer({ status: 405, body: 'Invalid method' });
    if (!found) return;
    Promise.resolve(
      found.handler(
        cluster,
        { method: req.method ?? '', query: url.searchParams, body: () => readJson(req), signal: closed },
        found.m,
      ),
    ).then(answer, (err: unknown) => answer({ status: 500, body: String(err instanceof Error ? err.message : err) }));
  });
  // Nomad's agent (command/agent/http.go) sets no IdleTimeout or ReadTimeout, so an idle kept-alive connection stays
  // open; Node's default closes it after 5 s (6 s on Node 20), and a client reusing it at that moment read ECONNRESET (seen under load)
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  if (timeline === 'shared-ip') {
    // the other job's alloc is placed and running before the test's job exists (it got the first IP)
    registerJob(cluster, parseJobHcl(OTHER_HCL));
    while (![...cluster.allocs.values()].some((a) => a.JobID === OTHER_JOB && a.ClientStatus === 'running'))
      await cluster.changed();
  }
  return {
    addr: `http://127.0.0.1:${port}`,
    clientDown: () => clientDown(cluster, timeline),
    clientUp: () => clientUp(cluster, timeline),
    clientRestart: (version?: string) => clientRestart(cluster, timeline, version),
    clientPartition: (ms: number) => clientPartition(cluster, ms),
    clientHeal: () => clientHeal(cluster),
    serverDown: () => serverHost.down(),
    serverUp: () => serverHost.up(cluster),
    clientLog: () => [...cluster.journal],
    requests,
    dropEventStreams: (o) => dropStreams(streams, o),
    failRequests: (rule) => {
      const r = { ...rule };
      failing.push(r);
      return () => void (failing.includes(r) && failing.splice(failing.indexOf(r), 1));
    },
    openEventStreams: () => streams.open.size,
    cluster,
    servers,
    close: async () => {
      dropStreams(streams);
      cluster.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A server agent that restarts with its host: no answers while down, no leader for a while after. */
function serverLifecycle(server: () => http.Server, effect: ServerRebootEffect, electionSteps: number) {
  const host = {
    state: 'up' as 'up' | 'down' | 'electing',
    down(): void {
      host.state = 'down';
      server().closeAllConnections();
    },
    up(c: Cluster): void {
      host.state = 'electing';
      // as Nomad's autopilot: back as a Raft non-voter, promoted once stable (100 steps here, 10 s in Nomad)
      c.nonVoterUntilMs = Date.now() + 100 * c.stepMs;
      if (effect === 'no-leader') return;
      c.later(electionSteps, () => {
        host.state = 'up';
        c.commit(['nodes'], () => undefined); // the new leader's first write wakes blocked queries
        if (effect !== 'restarts-tasks') return;
        for (const a of c.allocs.values()) if (a.ClientStatus === 'running') restartTasks(c, a.ID);
      });
    },
  };
  return host;
}

/** What a server without a leader answers: "" for the leader, 500 "No cluster leader" elsewhere (nomad-reference). */
function noLeader(path: string): Reply {
  if (path === '/v1/status/leader') return { status: 200, body: '""', headers: { 'content-type': 'application/json' } };
  return { status: 500, body: 'No cluster leader' };
}

/** The client restarts every task of an alloc (what the server-reboot scenario must notice). */
function restartTasks(c: Cluster, id: string): void {
  c.updateAlloc(id, (a) => {
    for (const t of Object.keys(a.TaskStates ?? {})) {
      c.appendEvent(a, t, taskEvent('Restarting', 'Task restarting in 0s'));
      a.TaskStates![t]!.Restarts = (a.TaskStates![t]!.Restarts ?? 0) + 1;
    }
  });
  c.startTasks(id);
}
