// Typed Nomad HTTP API client over an injected Transport: the only place the harness speaks to Nomad.
import { performance } from 'node:perf_hooks';
import { EXIT, HarnessError, formatMs } from '../errors.js';
import { sleep } from '../time/deadlines.js';
import { silentLogger, type Logger } from '../log/events.js';
import type * as A from './api-types.js';
import { NomadApiError, refusesJob, truncate } from './errors.js';
import type { Transport, TransportResponse } from './transport.js';
import { subscribeEvents, type EventStreamOptions, type EventSubscription } from './event-stream.js';

/** What a caller gives to Nomad.events(): the connection details come from the client. */
type EventsRequest = Omit<EventStreamOptions, 'transport' | 'token' | 'namespace' | 'region' | 'runStart'>;

/** Blocking-query options: `index` = last X-Nomad-Index seen, `wait` = Go duration with unit ("10s"). */
export interface ReadQuery {
  index?: number;
  wait?: string;
  signal?: AbortSignal;
  /** answered from the state of the server asked, not forwarded to the leader (`stale=true`) */
  stale?: boolean;
}

/** What every read returns: the decoded body and the X-Nomad-Index it was served at (0 if none). */
export interface Read<T> {
  body: T;
  index: number;
}

interface WriteOpts {
  signal?: AbortSignal;
}

export interface Nomad {
  agentSelf(q?: ReadQuery): Promise<Read<A.ApiAgentSelf>>;
  /** RPC address of the leader, "" when there is none */
  leader(q?: ReadQuery): Promise<Read<string>>;
  nodes(q?: ReadQuery): Promise<Read<A.ApiNodeListStub[]>>;
  node(id: string, q?: ReadQuery): Promise<Read<A.ApiNode>>;
  nodeAllocations(id: string, q?: ReadQuery): Promise<Read<A.ApiAllocation[]>>;
  /**
   * enable a drain of the node (`node drain -enable`): Nomad migrates its allocs as each job's migrate block says and
   * stops what is left at the deadline (ms; 0 = none); the node stays ineligible after it
   */
  drainNode(id: string, o: WriteOpts & { deadlineMs: number }): Promise<A.ApiNodeUpdateResponse>;
  /** mark the node eligible (or not) for new placements (`node eligibility -enable/-disable`) */
  setEligibility(id: string, eligible: boolean, o?: WriteOpts): Promise<A.ApiNodeUpdateResponse>;
  /** the Serf members: every server of the region, with its address */
  members(q?: ReadQuery): Promise<Read<A.ApiAgentMember[]>>;
  /** the Raft peers as the leader holds them (ACL operator:read) */
  raftConfiguration(q?: ReadQuery): Promise<Read<A.ApiRaftConfiguration>>;
  parseJob(hcl: string, o?: WriteOpts & { variables?: string }): Promise<A.ApiJob>;
  registerJob(job: A.ApiJob, hclSource: string, o?: WriteOpts): Promise<A.ApiJobRegisterResponse>;
  job(id: string, q?: ReadQuery): Promise<Read<A.ApiJob>>;
  stopJob(id: string, o: WriteOpts & { purge: boolean }): Promise<A.ApiJobDeregisterResponse>;
  jobAllocations(id: string, q?: ReadQuery): Promise<Read<A.ApiAllocListStub[]>>;
  allocation(id: string, q?: ReadQuery): Promise<Read<A.ApiAllocation>>;
  /** a file of the alloc's directory as text (GET /v1/client/fs/cat/:alloc_id?path=, forwarded to its client) */
  allocFile(id: string, path: string, q?: ReadQuery): Promise<string>;
  evaluations(q?: ReadQuery): Promise<Read<A.ApiEvaluation[]>>;
  /** the job's evaluations, full objects (WaitUntil, StatusDescription...); blocking on the evals table */
  jobEvaluations(id: string, q?: ReadQuery): Promise<Read<A.ApiEvaluation[]>>;
  /** the job's latest deployment, null when it has none; blocking on the deployments table */
  jobDeployment(id: string, q?: ReadQuery): Promise<Read<A.ApiDeployment | null>>;
  evaluation(id: string, q?: ReadQuery): Promise<Read<A.ApiEvaluation>>;
  /** subscribe to /v1/event/stream (reconnects from the last index; lib/nomad/event-stream.ts) */
  events(o: EventsRequest): EventSubscription;
  /** restart one task of an alloc in place (the client's restart, not a reschedule) */
  restartTask(allocId: string, task: string, o?: WriteOpts): Promise<void>;
  /** every registration of a Nomad-native service (provider "nomad") */
  serviceRegistrations(name: string, q?: ReadQuery): Promise<Read<A.ApiServiceRegistration[]>>;
  /** the latest result of each Nomad-native check of an alloc, keyed by check ID (answered by its client) */
  allocChecks(allocId: string, q?: ReadQuery): Promise<Read<Record<string, A.ApiCheckQueryResult>>>;
  /** every object of one server-side list, in every namespace (jobs, allocations, nodes, deployments, variables) */
  listAll(what: A.ServerListKind, q?: ReadQuery): Promise<Read<A.ApiListStub[]>>;
  /** the root keyring's keys (`nomad operator root keyring list`; ACL management) */
  keyringKeys(q?: ReadQuery): Promise<Read<A.ApiKeyringKey[]>>;
  /** create a dynamic host volume through its plugin (1.10+, `nomad volume create`); the answer's State is "pending" */
  createHostVolume(spec: A.ApiHostVolumeSpec, o?: WriteOpts): Promise<A.ApiHostVolume>;
  /** one dynamic host volume, with the allocs that use it */
  hostVolume(id: string, q?: ReadQuery): Promise<Read<A.ApiHostVolume>>;
  /** delete a dynamic host volume (its plugin removes it from its node) */
  deleteHostVolume(id: string, o?: WriteOpts): Promise<void>;
}

/** The path of each server-side list listAll reads. */
const SERVER_LIST_PATHS: Readonly<Record<A.ServerListKind, string>> = {
  jobs: '/v1/jobs',
  allocs: '/v1/allocations',
  nodes: '/v1/nodes',
  deployments: '/v1/deployments',
  variables: '/v1/vars',
};

interface NomadOptions {
  transport: Transport;
  /** ACL SecretID, sent as X-Nomad-Token and never logged */
  token?: string;
  namespace?: string;
  region?: string;
  logger?: Logger;
  /** performance.now() at run start, for LogEvent.t */
  runStart?: number;
  /** per-request budget on top of a blocking query's wait, when the caller gives no signal */
  requestTimeoutMs?: number;
  /**
   * how long one call keeps being retried while Nomad answers 5xx (a server between leaders answers 500 "No cluster
   * leader"), within the caller's signal; then the last status and body are the error. 0: never retried.
   */
  retry5xxMs?: number;
}

/** Pauses between retries of a 5xx answer; the last value repeats. */
const RETRY_5XX_INTERVALS_MS = [250, 500, 1000, 2000, 5000] as const;

/** Default budget of a plain request: Nomad answers non-blocking calls in well under a second. */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Parse a Go duration with unit ("250ms", "10s", "5m") to ms; undefined when malformed. */
export function parseGoDuration(s: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)$/.exec(s);
  if (!m) return undefined;
  const unit = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms'];
  return Number(m[1]) * unit;
}

/** Create a Nomad client; every effect goes through `transport`, so tests can point it anywhere. */
export function createNomad(o0: NomadOptions): Nomad {
  const { transport, token, namespace, region, logger = silentLogger, runStart = performance.now() } = o0;
  const { requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS, retry5xxMs = 0 } = o0;
  async function call(
    method: string,
    path: string,
    o: ReadQuery & { body?: unknown; query?: Record<string, string | undefined>; text?: boolean } = {},
  ): Promise<Read<unknown>> {
    if (o.wait !== undefined && parseGoDuration(o.wait) === undefined)
      throw new HarnessError(
        `blocking query wait must be a Go duration with unit such as "10s" (got ${JSON.stringify(o.wait)})`,
        { exitCode: EXIT.INTERNAL },
      );
    const budget = Math.ceil(requestTimeoutMs + ((parseGoDuration(o.wait ?? '0s') ?? 0) * 17) / 16);
    const signal0 = o.signal ? AbortSignal.any([o.signal, AbortSignal.timeout(budget)]) : AbortSignal.timeout(budget);
    const query = {
      namespace,
      region,
      ...o.query,
      index: o.index === undefined ? undefined : String(o.index),
      wait: o.wait,
      stale: o.stale ? 'true' : undefined,
    };
    const headers: Record<string, string> = token ? { 'X-Nomad-Token': token } : {};
    const retryUntil = performance.now() + retry5xxMs;
    const first = performance.now();
    let res: TransportResponse;
    for (let attempt = 0; ; attempt++) {
      const t0 = performance.now();
      // Note: each attempt gets its own budget; the caller's signal bounds them all.
      const own = AbortSignal.timeout(budget);
      const signal = attempt === 0 ? signal0 : o.signal ? AbortSignal.any([o.signal, own]) : own;
      try {
        res = await transport({ method, path, query, headers, body: o.body, signal });
      } catch (err) {
        logger({ kind: 'http', t: t0 - runStart, method, path, durationMs: performance.now() - t0 });
        throw err;
      }
      logger({ kind: 'http', t: t0 - runStart, method, path, status: res.status, durationMs: performance.now() - t0 });
      if (res.status < 500 || res.status > 599 || refusesJob(method, path, res.status, res.body)) break;
      const pause = RETRY_5XX_INTERVALS_MS[Math.min(attempt, RETRY_5XX_INTERVALS_MS.length - 1)]!;
      if (performance.now() + pause > retryUntil || o.signal?.aborted) {
        const retried = { attempts: attempt + 1, forMs: performance.now() - first };
        if (attempt > 0) throw new NomadApiError(method, path, res.status, res.body, retried);
        break;
      }
      if (attempt === 0) {
        const why = `Nomad API ${method} ${path}: HTTP ${res.status}: ${truncate(res.body.trim(), 200)}`;
        const message = `${why}; retrying for up to ${formatMs(retry5xxMs)} (nomad.retry_for)`;
        logger({ kind: 'warn', t: performance.now() - runStart, message });
      }
      await sleep(pause, { at: retryUntil, signal: o.signal ?? new AbortController().signal });
    }
    if (res.status < 200 || res.status > 299) throw new NomadApiError(method, path, res.status, res.body);
    const index = Number(res.headers['x-nomad-index'] ?? 0) || 0;
    if (o.text) return { body: res.body, index };
    if (res.body === '') return { body: undefined, index };
    try {
      return { body: JSON.parse(res.body) as unknown, index };
    } catch {
      throw new HarnessError(`Nomad API ${method} ${path}: answer is not JSON: ${truncate(res.body, 200)}`);
    }
  }
  const get = <T>(path: string, q: ReadQuery = {}) => call('GET', path, q) as Promise<Read<T>>;
  const e = encodeURIComponent;
  return {
    agentSelf: (q) => get('/v1/agent/self', q),
    leader: (q) => get('/v1/status/leader', q),
    nodes: (q) => get('/v1/nodes', q),
    node: (id, q) => get(`/v1/node/${e(id)}`, q),
    nodeAllocations: (id, q) => get(`/v1/node/${e(id)}/allocations`, q),
    async drainNode(id, o) {
      const body = {
        NodeID: id,
        DrainSpec: { Deadline: o.deadlineMs * 1e6, IgnoreSystemJobs: false },
        MarkEligible: false,
      };
      return (await call('PUT', `/v1/node/${e(id)}/drain`, { body, signal: o.signal })).body as A.ApiNodeUpdateResponse;
    },
    async setEligibility(id, eligible, o = {}) {
      const body = { NodeID: id, Eligibility: eligible ? 'eligible' : 'ineligible' };
      const r = await call('PUT', `/v1/node/${e(id)}/eligibility`, { body, signal: o.signal });
      return r.body as A.ApiNodeUpdateResponse;
    },
    raftConfiguration: (q) => get('/v1/operator/raft/configuration', q),
    // Note: /v1/agent/members answers {ServerName, ServerRegion, ServerDC, Members: [...]}
    members: async (q) => {
      const r = await get<{ Members?: A.ApiAgentMember[] | null }>('/v1/agent/members', q);
      return { body: r.body?.Members ?? [], index: r.index };
    },
    async parseJob(hcl, o = {}) {
      const body = { JobHCL: hcl, Canonicalize: true, Variables: o.variables ?? '' };
      return (await call('POST', '/v1/jobs/parse', { body, signal: o.signal })).body as A.ApiJob;
    },
    async registerJob(job, hclSource, o = {}) {
      const body = { Job: job, Submission: { Source: hclSource, Format: 'hcl2' } };
      return (await call('POST', '/v1/jobs', { body, signal: o.signal })).body as A.ApiJobRegisterResponse;
    },
    job: (id, q) => get(`/v1/job/${e(id)}`, q),
    async stopJob(id, o) {
      const query = { purge: o.purge ? 'true' : undefined };
      return (await call('DELETE', `/v1/job/${e(id)}`, { query, signal: o.signal })).body as A.ApiJobDeregisterResponse;
    },
    jobAllocations: (id, q) => get(`/v1/job/${e(id)}/allocations`, q),
    allocation: (id, q) => get(`/v1/allocation/${e(id)}`, q),
    async allocFile(id, path, q = {}) {
      return String((await call('GET', `/v1/client/fs/cat/${e(id)}`, { ...q, query: { path }, text: true })).body);
    },
    evaluations: (q) => get('/v1/evaluations', q),
    jobEvaluations: (id, q) => get(`/v1/job/${e(id)}/evaluations`, q),
    // Note: Nomad answers `null` for a job without a deployment
    jobDeployment: async (id, q) => {
      const r = await get<A.ApiDeployment | null | undefined>(`/v1/job/${e(id)}/deployment`, q);
      return { body: r.body ?? null, index: r.index };
    },
    evaluation: (id, q) => get(`/v1/evaluation/${e(id)}`, q),
    async restartTask(allocId, task, o = {}) {
      await call('POST', `/v1/client/allocation/${e(allocId)}/restart`, { body: { TaskName: task }, signal: o.signal });
    },
    serviceRegistrations: (name, q) => get(`/v1/service/${e(name)}`, q),
    allocChecks: (allocId, q) => get(`/v1/client/allocation/${e(allocId)}/checks`, q),
    listAll: async (what, q = {}) => {
      const path = SERVER_LIST_PATHS[what];
      const query = what === 'nodes' ? {} : { namespace: '*' };
      const r = (await call('GET', path, { ...q, query })) as Read<A.ApiListStub[] | null>;
      return { body: r.body ?? [], index: r.index };
    },
    async createHostVolume(spec, o = {}) {
      const r = await call('PUT', '/v1/volume/host/create', { body: { Volume: spec }, signal: o.signal });
      return (r.body as { Volume: A.ApiHostVolume }).Volume;
    },
    hostVolume: (id, q) => get(`/v1/volume/host/${e(id)}`, q),
    async deleteHostVolume(id, o = {}) {
      await call('DELETE', `/v1/volume/host/${e(id)}`, { signal: o.signal });
    },
    keyringKeys: async (q) => {
      const r = await get<A.ApiKeyringKey[] | null>('/v1/operator/keyring/keys', q);
      return { body: r.body ?? [], index: r.index };
    },
    events: (o) =>
      subscribeEvents({
        logger,
        ...o,
        transport,
        runStart,
        ...(token ? { token } : {}),
        ...(namespace ? { namespace } : {}),
        ...(region ? { region } : {}),
      }),
  };
}
