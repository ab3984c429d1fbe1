// bridge-exec-reboot records Nomad's event stream from job registration to the end (issue 15), against STAND-INS:
// the Nomad API stand-in's /v1/event/stream (real NDJSON format) and the stand-in lab. No VM, no Nomad.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runOnStandIns } from '../helpers/stand-in-run.js';
import type { Timeline } from '../helpers/fake-nomad/index.js';

async function run(t: Test, timeline: Timeline, extra: string[] = []) {
  const r = await runOnStandIns(t, ['--artifacts', 'always', ...extra], { timeline });
  return { ...r, run0: r.run0() };
}

t.test(
  '"transient-failure": the task dies once after the restore and is restarted; only the stream sees it, alloc-restored fails quoting it',
  async (t) => {
    const r = await run(t, 'transient-failure');
    t.equal(r.code, 1, 'exit 1');
    const v = r.verdict('alloc-restored');
    t.equal(v.status, 'failed');
    t.match(
      v.message,
      /failed after the fault and was restarted \(seen in the event stream\): alloc [0-9a-f]{8} task web: Terminated: Exit Code: 1; then .*task web: Restarting/,
    );
    t.ok(
      v.evidence.some((l) => /^event stream: \S+Z alloc [0-9a-f]{8} task web: Terminated/.test(l)),
      'the failing event quoted with its time',
    );
    t.equal(r.verdict('task-restarted').status, 'passed', 'the before/after view alone sees a healthy restore');
    const ev = r.artifact('events.ndjson');
    t.ok(ev, 'events.ndjson is an artifact');
    const lines = readFileSync(ev!.path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { receivedAtMs: number; Index: number; Events: { Topic: string; Type: string }[] });
    t.ok(
      lines.every((l) => l.receivedAtMs > 0 && l.Index > 0 && l.Events.length > 0),
      'one frame per line with its arrival time',
    );
    const topics = new Set(lines.flatMap((l) => l.Events.map((e) => `${e.Topic}/${e.Type}`)));
    for (const k of [
      'Job/JobRegistered',
      'Allocation/PlanResult',
      'Allocation/AllocationUpdated',
      'Node/NodeRegistration',
      'Node/NodeStreamEvent',
    ])
      t.ok(topics.has(k), `${k} recorded`);
    t.equal(r.run0.properties['events.reconnects'], '0');
    t.ok(Number(r.run0.properties['events.count']) >= 6, `events.count ${r.run0.properties['events.count']}`);
    const html = readFileSync(join(r.dir, 'reports', r.run0.runId, 'report.html'), 'utf8');
    t.match(html, /stream: node ready/, 'node transitions on the HTML timeline');
    t.match(html, /stream: alloc [0-9a-f]{8} running\/run/, 'alloc transitions on the HTML timeline');
    t.equal(r.s.nomad.openEventStreams(), 0, 'the stream is closed at the end of the run');
  },
);

t.test(
  '"restored": the stream shows the restore and judges nothing extra; the stream closes even when the run passes',
  async (t) => {
    const r = await run(t, 'restored');
    t.equal(r.code, 0);
    t.equal(r.verdict('alloc-restored').status, 'passed');
    t.ok(r.artifact('events.ndjson'));
    t.equal(r.s.nomad.openEventStreams(), 0);
  },
);
