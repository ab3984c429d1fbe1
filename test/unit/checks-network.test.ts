// http-reachable, no-duplicate-ip (with the real seed message), unique-ips and the duplicate-IP parser.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { judgeCheck } from '../../lib/checks/define.js';
import { HTTP_REACHABLE, probeTarget } from '../../lib/checks/http-reachable.js';
import { NO_DUPLICATE_IP } from '../../lib/checks/no-duplicate-ip.js';
import { findDuplicateIpError } from '../../lib/checks/parse-duplicate-ip.js';
import type { RebootEvidence } from '../../lib/model/evidence.js';
import { UNIQUE_IPS } from '../../lib/checks/unique-ips.js';

const load = (name: string): RebootEvidence =>
  JSON.parse(readFileSync(new URL(`../fixtures/checks/${name}.json`, import.meta.url), 'utf8')) as RebootEvidence;

/** The Setup Failure DisplayMessage quoted in GH-12216 (the seed of this project). */
const SEED =
  'failed to setup alloc: pre-run hook "network" failed: failed to configure networking for alloc: failed to configure network: plugin type="bridge" failed (add): failed to allocate for range 0: 172.26.64.69 has been allocated to 2976d256-..., duplicate allocation is not allowed';

t.test('findDuplicateIpError', async (t) => {
  t.same(findDuplicateIpError(SEED), { ip: '172.26.64.69', allocId: '2976d256-...' }, 'the seed message');
  t.same(
    findDuplicateIpError(
      'failed to allocate for range 0: 172.26.64.2 has been allocated to allocA, duplicate allocation is not allowed',
    ),
    { ip: '172.26.64.2', allocId: 'allocA' },
    'host-local run directly (nomad-reference §5)',
  );
  t.same(
    findDuplicateIpError('fd00::5 has been allocated to 9a1b, duplicate allocation is not allowed'),
    { ip: 'fd00::5', allocId: '9a1b' },
    'IPv6',
  );
  t.equal(
    findDuplicateIpError('requested IP address 172.26.64.2 is not available in range set 172.26.64.1-172.26.79.254'),
    undefined,
    'other host-local errors are not this one',
  );
  t.equal(findDuplicateIpError('Task started by client'), undefined);
  t.equal(findDuplicateIpError(''), undefined);
});

t.test('http-reachable', async (t) => {
  const ok = judgeCheck(HTTP_REACHABLE, load('restored'));
  t.equal(ok.status, 'passed', ok.message);
  t.match(
    ok.evidence.join('\n'),
    /\[bridge\] from client[^]*\[host-port\] from server: GET http:\/\/192\.168\.121\.11:25432\//,
    'target inferred from the host port',
  );

  const down = judgeCheck(HTTP_REACHABLE, load('duplicate-ip'));
  t.equal(down.status, 'failed');
  t.match(
    down.message,
    /2 of 2 probes failed; first: http:\/\/172\.26\.64\.69:8080\/ from client: connect ECONNREFUSED/,
  );

  const none = load('restored');
  none.after.http = [];
  t.match(
    judgeCheck(HTTP_REACHABLE, none),
    { status: 'failed', message: 'no probe was made after the reboot' },
    'never passes on nothing',
  );

  const onlyBridge = load('restored');
  onlyBridge.after.http = onlyBridge.after.http.filter((p) => p.target === 'bridge');
  t.match(judgeCheck(HTTP_REACHABLE, onlyBridge), { status: 'failed', message: /no host-port probe was made/ });

  const onlyHost = load('restored');
  onlyHost.after.http = onlyHost.after.http.filter((p) => p.target !== 'bridge');
  t.match(judgeCheck(HTTP_REACHABLE, onlyHost), { status: 'failed', message: /no bridge probe was made/ });

  const alloc = load('restored').after.alloc;
  t.equal(
    probeTarget({ from: 'client', url: 'http://172.26.64.2:8080/', ok: true, status: 200, error: undefined }, [alloc]),
    'bridge',
    'bridge inferred from the address',
  );
  t.equal(
    probeTarget({ from: 'x', url: 'http://127.0.0.1:9/', ok: true, status: 200, error: undefined }, [alloc]),
    'other',
  );
  t.equal(probeTarget({ from: 'x', url: 'not a url', ok: false, status: undefined, error: 'bad' }, [alloc]), 'other');
});

t.test('no-duplicate-ip', async (t) => {
  const ok = judgeCheck(NO_DUPLICATE_IP, load('restored'));
  t.equal(ok.status, 'passed', ok.message);
  t.match(ok.message, /scanned 5 task events and 3 client log lines/);

  const dup = judgeCheck(NO_DUPLICATE_IP, load('duplicate-ip'));
  t.equal(dup.status, 'failed');
  t.match(dup.message, /172\.26\.64\.69 was already allocated to 2976d256-\.\.\. \(2 occurrences\)/);
  t.ok(
    dup.evidence.some((l) => l.includes('Setup Failure') && l.includes(SEED)),
    'quotes the seed Setup Failure event verbatim',
  );
  t.ok(
    dup.evidence.some(
      (l) => l.startsWith('client log: ') && l.includes('has been allocated to 2976d256-4d3b-9b84-1c1e-6a2f0c9e8b71'),
    ),
    'quotes the journal line',
  );

  // Only in the client log (events rotated away), and only in a Details field.
  const logOnly = load('duplicate-ip');
  logOnly.taskEvents = {};
  logOnly.after.alloc = undefined;
  logOnly.after.jobAllocs = [];
  t.match(judgeCheck(NO_DUPLICATE_IP, logOnly), {
    status: 'failed',
    message: /2976d256-4d3b-9b84-1c1e-6a2f0c9e8b71 \(1 occurrence\)/,
  });

  const detailsOnly = load('restored');
  detailsOnly.taskEvents['other'] = [
    { type: 'Setup Failure', timeMs: 1, message: 'Task setup failed', details: { setup_error: SEED }, failsTask: true },
  ];
  t.match(judgeCheck(NO_DUPLICATE_IP, detailsOnly), { status: 'failed' }, 'found in the details of another alloc');
});

t.test('unique-ips', async (t) => {
  const ok = judgeCheck(UNIQUE_IPS, load('restored'));
  t.equal(ok.status, 'passed', ok.message);

  const shared = judgeCheck(UNIQUE_IPS, load('shared-ip'));
  t.equal(shared.status, 'failed');
  t.match(
    shared.message,
    /172\.26\.64\.2 is held by 2976d256-4d3b-9b84-1c1e-6a2f0c9e8b71 and 7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d/,
  );
  t.same(
    shared.evidence[0],
    '172.26.64.2 -> 2976d256-4d3b-9b84-1c1e-6a2f0c9e8b71, 7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d',
  );
  t.match(
    shared.perAlloc,
    [{ status: 'failed', detail: /172\.26\.64\.2 is also held by 7a6b5c4d/ }],
    'the judged alloc names who else holds its address',
  );

  const terminal = load('shared-ip');
  terminal.after.nodeAllocs[1]!.clientStatus = 'complete';
  t.equal(judgeCheck(UNIQUE_IPS, terminal).status, 'passed', 'a terminal alloc holding the address does not count');

  const sameTwice = load('restored');
  sameTwice.after.nodeAllocs = [sameTwice.after.alloc!, sameTwice.after.alloc!];
  t.equal(judgeCheck(UNIQUE_IPS, sameTwice).status, 'passed', 'the same alloc listed twice is not a collision');

  t.match(judgeCheck(UNIQUE_IPS, load('duplicate-ip')), { status: 'skipped', message: /no running alloc/ });
});
