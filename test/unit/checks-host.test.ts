// client-rebooted and node-back over recorded RebootEvidence samples.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { judgeCheck } from '../../lib/checks/define.js';
import { CLIENT_REBOOTED } from '../../lib/checks/client-rebooted.js';
import { NODE_BACK } from '../../lib/checks/node-back.js';
import type { RebootEvidence } from '../../lib/model/evidence.js';

const load = (name: string): RebootEvidence =>
  JSON.parse(readFileSync(new URL(`../fixtures/checks/${name}.json`, import.meta.url), 'utf8')) as RebootEvidence;

t.test('client-rebooted', async (t) => {
  const ok = judgeCheck(CLIENT_REBOOTED, load('restored'));
  t.equal(ok.status, 'passed', ok.message);
  t.match(
    ok.evidence.join('\n'),
    /0b7a4c2e-1f3d-4e5a-8b9c-0d1e2f3a4b5c[\s\S]*9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f/,
    'evidence shows both boot ids',
  );
  t.match(ok.evidence.join('\n'), /uptime after: 61s/);

  const same = load('restored');
  same.after.bootId = same.before.bootId;
  const r = judgeCheck(CLIENT_REBOOTED, same);
  t.equal(r.status, 'failed', 'equal boot ids fail');
  t.match(r.message, /did not change/);

  const missing = load('restored');
  missing.after.bootId = '';
  t.equal(judgeCheck(CLIENT_REBOOTED, missing).status, 'failed', 'an unobserved boot id never passes');
  t.match(judgeCheck(CLIENT_REBOOTED, missing).message, /after the reboot was not observed/);

  const longUptime = load('restored');
  longUptime.after.uptimeS = 3600; // an hour of uptime, but the reboot was requested 90 s ago
  const u = judgeCheck(CLIENT_REBOOTED, longUptime);
  t.equal(u.status, 'failed', 'uptime longer than the time since the request fails');
  t.match(u.message, /uptime 3600s is longer than the 1m30s since/);

  const noUptime = load('restored');
  noUptime.after.uptimeS = undefined;
  t.equal(judgeCheck(CLIENT_REBOOTED, noUptime).status, 'passed', 'unknown uptime does not block a changed boot id');
  t.equal(ok.message.includes('\n'), false, 'message is one line');
});

t.test('node-back', async (t) => {
  const ok = judgeCheck(NODE_BACK, load('replaced'));
  t.equal(ok.status, 'passed', ok.message);
  t.match(ok.evidence.join('\n'), /Node heartbeat missed/, 'node events are quoted');

  const down = load('restored');
  down.after.node!.status = 'down';
  const r = judgeCheck(NODE_BACK, down);
  t.equal(r.status, 'failed');
  t.match(r.message, /is down, not ready/);

  const other = load('restored');
  other.after.node!.id = '00000000-0000-0000-0000-000000000000';
  t.match(judgeCheck(NODE_BACK, other), { status: 'failed', message: /a different node came back/ });

  const gone = load('restored');
  gone.after.node = undefined;
  t.match(judgeCheck(NODE_BACK, gone), { status: 'failed', message: /not observed after/ });
});
