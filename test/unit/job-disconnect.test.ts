// A group's disconnect policy read from real `nomad job run -output` JSON (1.9.7 and 1.10.5) and applied per Nomad line.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { disconnectLine, effectiveDisconnect, formatDuration } from '../../lib/model/disconnect.js';
import { groupDisconnectFields } from '../../lib/parse/job-disconnect.js';
import { jobInfo } from '../../lib/parse/nomad-job.js';

const DIR = new URL('../fixtures/nomad/disconnect/', import.meta.url);
const read = (name: string): unknown => JSON.parse(readFileSync(new URL(name, DIR), 'utf8'));
const group = (name: string) => jobInfo(read(name)).info!.groups[0]!;

t.test('the disconnect block as 1.9.7 and 1.10.5 write it, on both lines', async (t) => {
  for (const build of ['1.9.7', '1.10.5']) {
    const g = group(`${build}-disconnect-output.json`);
    t.same(
      g.disconnect,
      { block: { lostAfterMs: 120_000, replace: true, reconcile: 'keep_original' } },
      `${build}: LostAfter ns, Replace, Reconcile; StopOnClientAfter null is unset`,
    );
    for (const line of ['before-1.10', '1.10+'] as const) {
      const p = effectiveDisconnect(g.name, g.disconnect, line);
      t.match(p, { group: 'web', line, lostAfterMs: 120_000, replace: true, reconcile: 'keep_original', ignored: [] });
      t.equal(p.written, 'disconnect { lost_after = "2m", replace = true, reconcile = "keep_original" }');
      t.notOk('stopOnClientAfterMs' in p, 'stop_on_client_after unset');
    }
  }
});

t.test('max_client_disconnect: honoured before 1.10, ignored from 1.10 (GH-25284)', async (t) => {
  for (const build of ['1.9.7', '1.10.5']) {
    const g = group(`${build}-legacy-output.json`);
    t.same(g.disconnect, { maxClientDisconnectMs: 90_000 }, `${build}: MaxClientDisconnect ns; Disconnect null`);
    const before = effectiveDisconnect('web', g.disconnect, 'before-1.10');
    t.match(before, { lostAfterMs: 90_000, replace: true, reconcile: 'best_score', ignored: [] });
    t.equal(before.written, 'max_client_disconnect = "1m30s"');
    const after = effectiveDisconnect('web', g.disconnect, '1.10+');
    t.match(after, { lostAfterMs: 0, replace: true, written: '', ignored: ['max_client_disconnect = "1m30s"'] });
  }
});

t.test('a job with neither: lost at once, replaced, best_score (the canonical API job of real 1.9.7)', async (t) => {
  const job = read('../../whole-alloc/real-1.9.7/job-parsed.json');
  const g = jobInfo(job).info!.groups[0]!;
  t.same(g.disconnect, {}, 'Disconnect null, MaxClientDisconnect null, PreventRescheduleOnLost false');
  t.same(effectiveDisconnect(g.name, g.disconnect, '1.10+'), {
    group: g.name,
    line: '1.10+',
    lostAfterMs: 0,
    replace: true,
    reconcile: 'best_score',
    written: '',
    ignored: [],
  });
});

t.test('the older fields win over the block before 1.10; prevent_reschedule_on_lost turns replace off', async (t) => {
  // as the canonical API job holds them (Replace and Reconcile filled in, StopOnClientAfter as ns)
  const g = groupDisconnectFields({
    Disconnect: { LostAfter: 0, StopOnClientAfter: 30_000_000_000, Replace: true, Reconcile: 'best_score' },
    MaxClientDisconnect: 300_000_000_000,
    StopAfterClientDisconnect: null,
    PreventRescheduleOnLost: true,
  });
  t.same(g, {
    block: { lostAfterMs: 0, stopOnClientAfterMs: 30_000, replace: true, reconcile: 'best_score' },
    maxClientDisconnectMs: 300_000,
    preventRescheduleOnLost: true,
  });
  const before = effectiveDisconnect('web', g, 'before-1.10');
  t.match(before, { lostAfterMs: 300_000, stopOnClientAfterMs: 30_000, replace: false });
  const after = effectiveDisconnect('web', g, '1.10+');
  t.match(after, { lostAfterMs: 0, stopOnClientAfterMs: 30_000, replace: true });
  t.same(after.ignored, ['max_client_disconnect = "5m"', 'prevent_reschedule_on_lost = true']);
});

t.test('the line of a version; durations as a job writes them', async (t) => {
  t.equal(disconnectLine('Nomad v1.9.7'), 'before-1.10');
  t.equal(disconnectLine('1.9.3'), 'before-1.10');
  t.equal(disconnectLine('Nomad v1.10.5'), '1.10+');
  t.equal(disconnectLine('Nomad v1.11.3-dev'), '1.10+');
  t.equal(disconnectLine('Nomad v2.0.5 (stand-in)'), '1.10+');
  t.equal(disconnectLine('nomad'), undefined);
  t.same([0, 250, 90_000, 120_000, 5_400_000, 3_723_000].map(formatDuration), [
    '0s',
    '250ms',
    '1m30s',
    '2m',
    '1h30m',
    '1h2m3s',
  ]);
});
