// Part of the Nomad API stand-in (not Nomad): the HTTP routes, with Nomad's blocking-query rules
// (index + wait, 400 "Invalid wait time" / "Invalid index"), plain-text errors and X-Nomad-Index.
import type { IncomingMessage } from 'node:http';
import { parseGoDuration } from '../../../lib/nomad/client.js';
import type { ApiAllocation, ApiJob } from '../../../lib/nomad/api-types.js';
import type { Cluster, Table } from './cluster.js';
import { parseJobHcl } from './job-parse.js';
import { registerJob, stopJob } from './jobs.js';
import { agentSelf, allocStub, evalOut, fullAlloc, jobForLine, nodeStub } from './payloads.js';
import { WHOLE_ALLOC_ROUTES } from './whole-alloc.js';
import { diskMarker } from './job-types.js';
import { DISK_MARKER } from '../../../lib/model/volumes.js';
import { drainNode, members, nodeById, raftConfiguration, setEligibility } from './nodes.js';
import {
  createHostVolume,
  deleteHostVolume,
  hostVolumeRead,
  hostVolumeStubs,
  hostVolumesServed,
} from './host-volumes.js';
import type { ApiHostVolumeSpec } from '../../../lib/nomad/api-types.js';

export interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}
interface Req {
  method: string;
  query: URLSearchParams;
  body: () => Promise<unknown>;
  /** the request's connection: closed (the client aborted, or the stand-in closed), and a promise of that */
  signal: { closed: boolean; whenClosed: Promise<void> };
}
type Handler = (c: Cluster, req: Req, m: RegExpExecArray) => Promise<Reply> | Reply;

const MAX_WAIT_MS = 10 * 60_000; // Nomad caps wait at 10m
const DEFAULT_WAIT_MS = 5 * 60_000; // and defaults it to 5m
const text = (status: number, body: string): Reply => ({ status, body });
// Note: real responses also carry `Vary: Accept-Encoding` (index.ts adds it to every answer)
const json = (body: unknown, headers: Record<string, string> = {}): Reply => ({
  status: 200,
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json', ...headers },
});

/** A read that honours ?index and ?wait, answering with the tables' index in X-Nomad-Index. */
function blocking(tables: Table[], read: (c: Cluster, m: RegExpExecArray) => unknown, notFound?: string): Handler {
  return async (c, req, m) => {
    const rawIndex = req.query.get('index');
    const rawWait = req.query.get('wait');
    if (rawIndex !== null && !/^\d+$/.test(rawIndex)) return text(400, 'Invalid index');
    const waitMs = rawWait === null ? DEFAULT_WAIT_MS : parseGoDuration(rawWait);
    if (waitMs === undefined) return text(400, 'Invalid wait time');
    const index = Number(rawIndex ?? 0);
    if (index > 0) {
      const wait = Math.min(waitMs, MAX_WAIT_MS);
      const until = Date.now() + wait + Math.random() * (wait / 16); // Nomad adds up to wait/16 jitter
      while (c.indexOf(tables) <= index && Date.now() < until && !req.signal.closed) {
        let t: NodeJS.Timeout | undefined;
        // Note: ends on the client's abort too, as Nomad does: a held query's timer would keep the process alive
        await Promise.race([
          c.changed(),
          req.signal.whenClosed,
          new Promise((r) => (t = setTimeout(r, until - Date.now()))),
        ]);
        clearTimeout(t);
      }
    }
    const body = read(c, m);
    const meta = {
      'x-nomad-index': String(Math.max(1, c.indexOf(tables))),
      'x-nomad-knownleader': 'true',
      'x-nomad-lastcontact': '0',
    };
    if (body instanceof Error) return text(500, body.message);
    // a real 404 from a blocking read still carries the query meta headers (1.9.3/1.9.7 error-404-job-not-found)
    if (body === undefined) return { ...text(404, notFound ?? 'resource not found'), headers: meta };
    return json(body, meta);
  };
}

const withJob = (c: Cluster, a: ApiAllocation) => fullAlloc(a, c.jobs.get(a.JobID) ?? null, c.version);
/** Real Nomad looks an alloc up by full UUID only: a shorter id is a 500 (1.9.3/1.9.7 error-500-alloc-short-id). */
const UUID_LEN = 36;

/** Route table: [method, path pattern, handler]. */
export const ROUTES: [string[], RegExp, Handler][] = [
  [['GET'], /^\/v1\/agent\/self$/, (c) => json(agentSelf(c.version))],
  [['GET'], /^\/v1\/status\/leader$/, () => json('127.0.0.1:4647')],
  [['GET'], /^\/v1\/agent\/members$/, (c) => json(members(c))],
  [['GET'], /^\/v1\/operator\/raft\/configuration$/, (c) => json(raftConfiguration(c))],
  [['GET'], /^\/v1\/nodes$/, blocking(['nodes'], (c) => c.allNodes().map(nodeStub))],
  [['GET'], /^\/v1\/node\/([^/]+)$/, blocking(['nodes'], (c, m) => nodeById(c, m[1]!), 'node not found')],
  [
    ['PUT', 'POST'],
    /^\/v1\/node\/([^/]+)\/drain$/,
    async (c, req, m) => {
      const n = nodeById(c, m[1]!);
      if (!n) return text(404, 'node not found');
      const b = (await req.body()) as { DrainSpec?: { Deadline?: number } | null } | undefined;
      const idx = drainNode(c, n, b?.DrainSpec ?? null);
      return json({ NodeModifyIndex: idx, EvalIDs: null, EvalCreateIndex: 0, Index: idx });
    },
  ],
  [
    ['PUT', 'POST'],
    /^\/v1\/node\/([^/]+)\/eligibility$/,
    async (c, req, m) => {
      const n = nodeById(c, m[1]!);
      if (!n) return text(404, 'node not found');
      const b = (await req.body()) as { Eligibility?: string } | undefined;
      if (b?.Eligibility !== 'eligible' && b?.Eligibility !== 'ineligible')
        return text(400, 'invalid scheduling eligibility');
      const idx = setEligibility(c, n, b.Eligibility);
      return json({ NodeModifyIndex: idx, EvalIDs: null, EvalCreateIndex: 0, Index: idx });
    },
  ],
  [
    ['GET'],
    /^\/v1\/node\/([^/]+)\/allocations$/,
    blocking(['allocs'], (c, m) => [...c.allocs.values()].filter((a) => a.NodeID === m[1]).map((a) => withJob(c, a))),
  ],
  [
    ['POST', 'PUT'],
    /^\/v1\/jobs\/parse$/,
    async (c, req) => {
      const b = (await req.body()) as { JobHCL?: string; Variables?: string } | undefined;
      if (!b?.JobHCL) return text(400, 'Job HCL must be specified');
      try {
        return json(jobForLine(parseJobHcl(b.JobHCL, b.Variables ?? ''), c.version));
      } catch (err) {
        return text(400, `error parsing: ${(err as Error).message}`);
      }
    },
  ],
  [
    ['POST', 'PUT'],
    /^\/v1\/jobs$/,
    async (c, req) => {
      const b = (await req.body()) as { Job?: ApiJob } | undefined;
      if (!b?.Job?.ID) return text(400, 'Job must be specified');
      const invalid = diskTooSmall(b.Job);
      if (invalid) return text(500, invalid);
      const r = registerJob(c, jobForLine(b.Job, c.version));
      // real 1.9.3/1.9.7 register response: QueryMeta keys in the body, X-Nomad-Index header, no KnownLeader header
      return json({ ...r, KnownLeader: false, LastContact: 0, NextToken: '' }, { 'x-nomad-index': String(r.Index) });
    },
  ],
  [['GET'], /^\/v1\/job\/([^/]+)$/, blocking(['jobs'], (c, m) => c.jobs.get(m[1]!), 'job not found')],
  [
    ['DELETE'],
    /^\/v1\/job\/([^/]+)$/,
    (c, req, m) => {
      const r = stopJob(c, m[1]!, req.query.get('purge') === 'true');
      return r ? json(r) : text(404, 'job not found');
    },
  ],
  [
    ['GET'],
    /^\/v1\/job\/([^/]+)\/allocations$/,
    blocking(['allocs'], (c, m) =>
      [...c.allocs.values()].filter((a) => a.JobID === m[1]).map((a) => allocStub(a, c.version)),
    ),
  ],
  // full Evaluation objects (WaitUntil, PreviousEval), as real Nomad's job evaluations list gives them
  [
    ['GET'],
    /^\/v1\/job\/([^/]+)\/evaluations$/,
    blocking(['evals'], (c, m) => [...c.evals.values()].filter((e) => e.JobID === m[1]).map((e) => evalOut(e, c))),
  ],
  // Note: real Nomad answers `null` for a job without a deployment
  [
    ['GET'],
    /^\/v1\/job\/([^/]+)\/deployment$/,
    blocking(['deployments'], (c, m) => c.deployments.get(m[1] ?? '') ?? null),
  ],
  [
    ['GET'],
    /^\/v1\/deployment\/([^/]+)$/,
    blocking(['deployments'], (c, m) => [...c.deployments.values()].find((d) => d.ID === m[1]), 'deployment not found'),
  ],
  [
    ['GET'],
    /^\/v1\/allocation\/([^/]+)$/,
    blocking(
      ['allocs'],
      (c, m) => {
        if (m[1]!.length !== UUID_LEN)
          return new Error(`alloc lookup failed: index error: UUID must be ${UUID_LEN} characters`);
        const a = c.allocs.get(m[1]!);
        return a && withJob(c, a);
      },
      'alloc not found',
    ),
  ],
  [['GET'], /^\/v1\/evaluations$/, blocking(['evals'], (c) => [...c.evals.values()].map((e) => evalOut(e, c)))],
  [
    ['GET'],
    /^\/v1\/evaluation\/([^/]+)$/,
    blocking(
      ['evals'],
      (c, m) => {
        const e = c.evals.get(m[1]!);
        return e && evalOut(e, c);
      },
      'eval not found',
    ),
  ],
  // dynamic host volumes (1.10+, host-volumes.ts); before 1.10 Go's mux knows no /v1/volume/host/ (404), and the CSI
  // list handler answers a type other than "csi" with null (nomad@v1.9.7 command/agent/csi_endpoint.go)
  [
    ['GET'],
    /^\/v1\/volumes$/,
    (c, req, m) => {
      const type = req.query.get('type');
      if (!hostVolumesServed(c)) return json(type === null ? [] : type === 'csi' ? [] : null);
      if (type === null || type === 'csi') return json([]);
      if (type !== 'host') return text(404, 'resource not found');
      return blocking(['volumes'], (cc) => hostVolumeStubs(cc))(c, req, m);
    },
  ],
  [
    ['PUT', 'POST'],
    /^\/v1\/volume\/host\/create$/,
    async (c, req) => {
      if (!hostVolumesServed(c)) return text(404, '404 page not found');
      const b = (await req.body()) as { Volume?: Partial<ApiHostVolumeSpec> } | undefined;
      const r = createHostVolume(c, b?.Volume);
      if ('error' in r) return text(400, r.error);
      return json(r.body, { 'x-nomad-index': String(r.body['Index']) });
    },
  ],
  [
    ['GET', 'DELETE'],
    /^\/v1\/volume\/host\/([^/]+)$/,
    (c, req, m) => {
      if (!hostVolumesServed(c)) return text(404, '404 page not found');
      if (req.method === 'GET')
        return blocking(['volumes', 'allocs'], (cc, mm) => hostVolumeRead(cc, mm[1]!), 'volume not found')(c, req, m);
      const r = deleteHostVolume(c, m[1]!);
      return r.status === 200 ? json(r.body) : text(r.status, String(r.body));
    },
  ],
  ...WHOLE_ALLOC_ROUTES,
  // DERIVED, not captured: the text of a missing file's answer (nomad client/fs_endpoint.go wraps the stat error)
  [
    ['GET'],
    /^\/v1\/client\/fs\/cat\/([^/]+)$/,
    (c, req, m) => {
      if (!c.allocs.has(m[1]!)) return text(404, 'Unknown allocation');
      const path = req.query.get('path') ?? '';
      const marker = path === DISK_MARKER ? diskMarker(c, m[1]!) : undefined;
      return marker === undefined
        ? text(500, `stat /var/lib/nomad/alloc/${m[1]}/${path}: no such file or directory`)
        : { status: 200, body: `${marker}\n`, headers: { 'content-type': 'text/plain' } };
    },
  ],
];

/** Find the handler for a request: 404 for unknown paths, 405 for a known path with the wrong method. */
export function route(method: string, path: string): { handler: Handler; m: RegExpExecArray } | Reply {
  let pathKnown = false;
  for (const [methods, re, handler] of ROUTES) {
    const m = re.exec(path);
    if (!m) continue;
    pathKnown = true;
    if (methods.includes(method)) return { handler, m };
  }
  return pathKnown ? text(405, 'Invalid method') : text(404, '404 page not found');
}

/** Read a JSON request body (undefined when empty). */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const ch of req) chunks.push(ch as Buffer);
  const s = Buffer.concat(chunks).toString('utf8');
  return s ? (JSON.parse(s) as unknown) : undefined;
}

/**
 * Nomad's job validation of a kept disk against the tasks' log storage (nomad/structs LogConfig.Validate, every line we
 * support), with the answer real 2.0.5 gave for `ephemeral_disk { size = 100 }` and default logs: a 500 whose body is
 * the multierror. undefined: the job passes this rule.
 */
export function diskTooSmall(job: ApiJob): string | undefined {
  for (const g of job.TaskGroups ?? []) {
    const size = (g as { EphemeralDisk?: { SizeMB?: number } }).EphemeralDisk?.SizeMB;
    if (typeof size !== 'number') continue;
    for (const task of g.Tasks ?? []) {
      const logs = (task as { LogConfig?: { MaxFiles?: number; MaxFileSizeMB?: number } }).LogConfig;
      const usage = (logs?.MaxFiles ?? 10) * (logs?.MaxFileSizeMB ?? 10);
      if (size <= usage)
        return `1 error occurred:\n\t* Task group ${g.Name} validation failed: 1 error occurred:\n\t* Task ${task.Name} validation failed: 1 error occurred:\n\t* 1 error occurred:\n\t* log storage (${usage} MB) must be less than requested disk capacity (${size} MB)\n\n\n\n\n\n\n\n`;
    }
  }
  return undefined;
}
