// Part of the Nomad API stand-in (not Nomad): what the whole-alloc reads ask of the API. A task restart through the
// client (its events as real 1.9.7 gives them), Nomad-native service registrations and their check results for every
// running alloc whose job declares them (shapes of test/fixtures/whole-alloc/real-1.9.7/initial/*.json).
import { createHash } from 'node:crypto';
import type { ApiAllocation, ApiCheckQueryResult, ApiServiceRegistration } from '../../../lib/nomad/api-types.js';
import type { Cluster } from './cluster.js';
import type { Reply } from './routes.js';
import { nowRfc3339, taskEvent } from './payloads.js';
import { CHECK_ID_SHA256_SINCE, lineAtLeast } from './lines.js';

const json = (body: unknown): Reply => ({
  status: 200,
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});
const text = (status: number, body: string): Reply => ({ status, body });

interface Declared {
  name: string;
  portLabel: string;
  tags: string[];
  checks: { Name: string; Type: string }[];
}

/** The Nomad-native services the alloc's group declares in its job. */
function declaredOf(c: Cluster, a: ApiAllocation): Declared[] {
  const g = c.jobs.get(a.JobID)?.TaskGroups?.find((x) => x.Name === a.TaskGroup);
  const all = [g?.['Services'], ...(g?.Tasks ?? []).map((t) => t['Services'])].flatMap((s) =>
    Array.isArray(s) ? s : [],
  ) as Record<string, unknown>[];
  return all
    .filter((s) => s['Provider'] === 'nomad')
    .map((s) => ({
      name: String(s['Name']),
      portLabel: String(s['PortLabel'] ?? ''),
      tags: Array.isArray(s['Tags']) ? (s['Tags'] as unknown[]).map(String) : [],
      checks: (s['Checks'] as { Name: string; Type: string }[] | null) ?? [],
    }));
}

const live = (c: Cluster) =>
  [...c.allocs.values()].filter((a) => a.ClientStatus === 'running' && a.DesiredStatus === 'run');
// a check's ID as nomad/structs/checks.go NomadCheckID makes it (of more fields than these): sha256 from 2.0.5, md5 before
const hex = (c: Cluster, s: string) =>
  createHash(lineAtLeast(c.version, CHECK_ID_SHA256_SINCE) ? 'sha256' : 'md5')
    .update(s)
    .digest('hex');

/** GET /v1/service/:name: one registration per running alloc declaring it (Address = the node's, as real 1.9.7). */
export function serviceRegistrations(c: Cluster, name: string): ApiServiceRegistration[] {
  return live(c).flatMap((a) =>
    declaredOf(c, a)
      .filter((d) => d.name === name)
      .map((d) => {
        const port = (a.AllocatedResources?.Shared?.Ports ?? []).find((p) => p.Label === d.portLabel);
        return {
          ID: `_nomad-task-${a.ID}-group-${a.TaskGroup}-${d.name}-${d.portLabel}`,
          ServiceName: d.name,
          Namespace: 'default',
          NodeID: a.NodeID,
          Datacenter: 'dc1',
          JobID: a.JobID,
          AllocID: a.ID,
          Tags: d.tags,
          Address: port?.HostIP || '127.0.0.1',
          Port: port?.Value ?? 0,
          CreateIndex: a.ModifyIndex,
          ModifyIndex: a.ModifyIndex,
        };
      }),
  );
}

/** GET /v1/client/allocation/:id/checks: every declared check passing while the alloc runs; undefined for an unknown alloc. */
export function allocChecks(c: Cluster, id: string): Record<string, ApiCheckQueryResult> | undefined {
  const a = c.allocs.get(id);
  if (!a) return undefined;
  const out: Record<string, ApiCheckQueryResult> = {};
  if (a.ClientStatus !== 'running') return out;
  for (const d of declaredOf(c, a)) {
    for (const ch of d.checks) {
      const ID = hex(c, `${a.ID}/${d.name}/${ch.Name}`);
      const http = ch.Type === 'http';
      out[ID] = {
        ID,
        Mode: 'healthiness',
        Status: 'success',
        StatusCode: http ? 200 : 0,
        Output: `nomad: ${http ? 'http' : 'tcp'} ok`,
        Timestamp: Math.floor(Date.now() / 1000),
        Group: a.Name,
        Task: '',
        Service: d.name,
        Check: ch.Name,
      };
    }
  }
  return out;
}

/** The client restarts one task in place: Restart Signaled, Terminated, Restarting, then Started a step later. */
export function restartTask(c: Cluster, id: string, task: string): Reply {
  const a = c.allocs.get(id);
  if (!a) return text(404, `Unknown allocation "${id}"`);
  if (!a.TaskStates?.[task]) return text(500, `Could not find task named: ${task}`);
  c.updateAlloc(id, (x) => {
    const st = x.TaskStates![task]!;
    c.appendEvent(
      x,
      task,
      taskEvent('Restart Signaled', 'User requested task to restart', {
        RestartReason: 'User requested task to restart',
      }),
    );
    c.appendEvent(
      x,
      task,
      taskEvent('Terminated', 'Exit Code: 0', { Details: { exit_code: '0', signal: '0', oom_killed: 'false' } }),
    );
    c.appendEvent(
      x,
      task,
      taskEvent('Restarting', 'Task restarting in 0s', {
        Details: { restart_reason: 'User requested task to restart' },
      }),
    );
    Object.assign(st, { Restarts: (st.Restarts ?? 0) + 1, LastRestart: nowRfc3339() });
  });
  c.later(1, () =>
    c.updateAlloc(id, (x) => {
      const st = x.TaskStates![task]!;
      c.appendEvent(x, task, taskEvent('Started', 'Task started by client'));
      Object.assign(st, { State: 'running', StartedAt: nowRfc3339() });
    }),
  );
  return json({ Index: 0 });
}

type Route = [
  string[],
  RegExp,
  (c: Cluster, req: { body: () => Promise<unknown> }, m: RegExpExecArray) => Promise<Reply> | Reply,
];

/** The routes, appended to the stand-in's table (routes.ts). */
export const WHOLE_ALLOC_ROUTES: Route[] = [
  [
    ['POST', 'PUT'],
    /^\/v1\/client\/allocation\/([^/]+)\/restart$/,
    async (c, req, m) => {
      const b = (await req.body()) as { TaskName?: string } | undefined;
      return restartTask(c, m[1]!, b?.TaskName ?? '');
    },
  ],
  [
    ['GET'],
    /^\/v1\/client\/allocation\/([^/]+)\/checks$/,
    (c, _req, m) => {
      const checks = allocChecks(c, m[1]!);
      return checks ? json(checks) : text(404, `Unknown allocation "${m[1]}"`);
    },
  ],
  // a read of the state store: with the query meta headers (real-1.9.7 whole-alloc and real-<line>/cluster captures)
  [
    ['GET'],
    /^\/v1\/service\/([^/]+)$/,
    (c, _req, m) => {
      const r = json(serviceRegistrations(c, decodeURIComponent(m[1]!)));
      return {
        ...r,
        headers: {
          ...r.headers,
          'x-nomad-index': String(c.index),
          'x-nomad-knownleader': 'true',
          'x-nomad-lastcontact': '0',
        },
      };
    },
  ],
];
