// lib/nomad/client.ts over an injected transport (no sockets): headers, query, index, errors, logging.
import t from 'tap';
import { EXIT } from '../../lib/errors.js';
import type { LogEvent } from '../../lib/log/events.js';
import { createNomad, parseGoDuration } from '../../lib/nomad/client.js';
import { NomadApiError } from '../../lib/nomad/errors.js';
import type { TransportRequest, TransportResponse } from '../../lib/nomad/transport.js';
import { buildPath } from '../../lib/nomad/transport.js';
import { describeAllocStub, blockingWait } from '../../lib/nomad/wait.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { readFileSync } from 'node:fs';
import type { ApiAllocListStub } from '../../lib/nomad/api-types.js';

function recorder(reply: Partial<TransportResponse> = {}) {
  const seen: TransportRequest[] = [];
  const transport = async (req: TransportRequest): Promise<TransportResponse> => {
    seen.push(req);
    return { status: 200, headers: { 'x-nomad-index': '42' }, body: '[]', ...reply };
  };
  return { seen, transport };
}

t.test('reads carry token header, namespace/region and blocking params; index comes from X-Nomad-Index', async (t) => {
  const { seen, transport } = recorder();
  const logs: LogEvent[] = [];
  const nomad = createNomad({
    transport,
    token: 'secret-abc',
    namespace: 'ops',
    region: 'eu',
    logger: (e) => logs.push(e),
  });
  const r = await nomad.jobAllocations('web app', { index: 41, wait: '10s' });
  t.same(r, { body: [], index: 42 });
  const req = seen[0]!;
  t.equal(req.method, 'GET');
  t.equal(req.path, '/v1/job/web%20app/allocations');
  t.same(req.headers, { 'X-Nomad-Token': 'secret-abc' });
  t.equal(buildPath(req.path, req.query), '/v1/job/web%20app/allocations?namespace=ops&region=eu&index=41&wait=10s');
  t.equal(logs.length, 1);
  t.match(logs[0], { kind: 'http', method: 'GET', path: '/v1/job/web%20app/allocations', status: 200 });
  t.notMatch(JSON.stringify(logs), /secret-abc/, 'token never logged');
});

t.test('no token, no namespace: no header and no empty params', async (t) => {
  const { seen, transport } = recorder();
  await createNomad({ transport }).nodes();
  t.same(seen[0]!.headers, {});
  t.equal(buildPath(seen[0]!.path, seen[0]!.query), '/v1/nodes');
});

t.test('parse and register send the documented bodies', async (t) => {
  const { seen, transport } = recorder({ body: '{"ID":"web","Name":"web","Type":"service","TaskGroups":[]}' });
  const nomad = createNomad({ transport });
  const job = await nomad.parseJob('job "web" {}', { variables: 'port = 8080' });
  await nomad.registerJob(job, 'job "web" {}');
  await nomad.stopJob('web', { purge: true });
  t.same(seen[0]!.body, { JobHCL: 'job "web" {}', Canonicalize: true, Variables: 'port = 8080' });
  t.same(seen[1]!.body, { Job: job, Submission: { Source: 'job "web" {}', Format: 'hcl2' } });
  t.equal(seen[2]!.method, 'DELETE');
  t.equal(buildPath(seen[2]!.path, seen[2]!.query), '/v1/job/web?purge=true');
});

t.test('non-2xx -> NomadApiError with the plain-text body; 403 hints at the token and exits 2', async (t) => {
  const nf = createNomad({ transport: recorder({ status: 404, body: 'job not found' }).transport });
  const e404 = await nf.job('nope').catch((e: unknown) => e);
  t.ok(e404 instanceof NomadApiError);
  t.match(e404, { method: 'GET', path: '/v1/job/nope', status: 404, body: 'job not found', exitCode: EXIT.INFRA });
  t.match((e404 as Error).message, 'Nomad API GET /v1/job/nope: HTTP 404: job not found');
  const denied = createNomad({
    transport: recorder({ status: 403, body: 'Permission denied' }).transport,
    token: 'tok-999',
  });
  const e403 = await denied.nodes().catch((e: unknown) => e);
  t.match(e403, { status: 403, exitCode: EXIT.USAGE, hint: /NOMAD_TOKEN/ });
  t.notMatch(String((e403 as Error).message) + (e403 as NomadApiError).hint, /tok-999/);
  const long = await createNomad({ transport: recorder({ status: 500, body: 'x'.repeat(2000) }).transport })
    .nodes()
    .catch((e: NomadApiError) => e);
  t.ok(long.body.length < 600, 'body truncated');
  const bad = await createNomad({ transport: recorder({ status: 400, body: 'error parsing: line 1' }).transport })
    .parseJob('x')
    .catch((e: NomadApiError) => e);
  t.equal(bad.exitCode, EXIT.USAGE, 'a rejected jobspec is a usage error');
});

t.test('a 2xx that is not JSON is an error with an excerpt', async (t) => {
  const nomad = createNomad({ transport: recorder({ body: '<html>proxy</html>' }).transport });
  await t.rejects(nomad.nodes(), /answer is not JSON: <html>proxy<\/html>/);
});

t.test('wait must be a Go duration with unit', async (t) => {
  const { seen, transport } = recorder();
  await t.rejects(createNomad({ transport }).nodes({ index: 3, wait: '10' }), /Go duration with unit/);
  t.equal(seen.length, 0, 'nothing sent');
  t.equal(parseGoDuration('300ms'), 300);
  t.equal(parseGoDuration('1.5s'), 1500);
  t.equal(parseGoDuration('5m'), 300_000);
  t.equal(parseGoDuration('10'), undefined);
});

t.test('transport failures propagate and are logged without status', async (t) => {
  const logs: LogEvent[] = [];
  const nomad = createNomad({
    transport: async () => {
      throw new Error('boom');
    },
    logger: (e) => logs.push(e),
  });
  await t.rejects(nomad.leader(), /boom/);
  t.equal(logs.length, 1);
  t.equal((logs[0] as { status?: number }).status, undefined);
});

t.test('blockingWait is capped by the deadline and by the maximum', async (t) => {
  const far = deadlineIn(120_000);
  t.equal(blockingWait(far, 30_000), '30000ms');
  const near = deadlineIn(1_000);
  const ms = Number(/^(\d+)ms$/.exec(blockingWait(near)!)![1]);
  t.ok(ms > 600 && ms <= 706, `capped below the remaining time minus jitter (got ${ms})`);
  t.equal(blockingWait(deadlineIn(100)), undefined, 'too close to the deadline: do not block');
});

t.test('describeAllocStub names status and the last event', async (t) => {
  const stub = JSON.parse(
    readFileSync(new URL('../fixtures/nomad/alloc-stub-running.json', import.meta.url), 'utf8'),
  ) as ApiAllocListStub;
  t.equal(
    describeAllocStub(stub),
    'alloc 5b3c2f4e client_status=running (Tasks are running), last event "Started: Task started by client"',
  );
  const lost = {
    ...stub,
    ClientStatus: 'lost',
    DesiredStatus: 'stop',
    DesiredDescription: 'alloc is lost since its node is down',
    NextAllocation: '9d8e7f60-1a2b',
    TaskStates: {},
  };
  t.equal(
    describeAllocStub(lost),
    'alloc 5b3c2f4e client_status=lost desired_status=stop (alloc is lost since its node is down), replaced by 9d8e7f60',
  );
});
