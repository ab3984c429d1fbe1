// bench/bring-up-table.ts: the bring-up phases read from a real pair report (a cold bridge-exec-reboot run on real
// 1.10.5 VMs, r62lma607cee5c) and from a cluster run's step names, and the table of topologies against the raw floor.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { bringUpPhases, bringUpTable, parseTopologyArg } from '../../bench/bring-up-table.js';

const REAL = JSON.parse(
  readFileSync(new URL('../fixtures/report/real-1.10.5-cold-summary.json', import.meta.url), 'utf8'),
) as unknown;

const cluster = (steps: [string, number][], warm = 'no (--fresh)') => ({
  runs: [{ steps: steps.map(([name, durationMs]) => ({ name, durationMs })), properties: { 'lab.warm': warm } }],
});

t.test('a real pair run: VMs up, install, the leader and the client node (two steps)', async (t) => {
  const p = bringUpPhases(REAL);
  t.equal(Math.round(p.upMs!), 85262, 'bring up the server and client VMs');
  t.equal(Math.round(p.installMs!), 56372);
  t.equal(Math.round(p.readyMs!), 660 + 91, 'the leader elected, then the client node ready');
  t.equal(Math.round(p.toReadyMs!), 85262 + 56372 + 660 + 91);
});

t.test("a cluster run's steps; a run that stopped before ready has no total", async (t) => {
  const p = bringUpPhases(
    cluster([
      ['bring up the lab', 152_000],
      ['install Nomad and start the agents', 61_000],
      ['connect to the Nomad API', 400],
      ['wait for a leader and every client node ready (client-1, client-2)', 64_000],
      ['parse the job (count 2)', 100],
      ['reboot server-1 (graceful)', 90_000],
    ]),
  );
  t.same(p, { upMs: 152_000, installMs: 61_000, readyMs: 64_000, toReadyMs: 277_000, warm: 'no (--fresh)' });
  const cut = bringUpPhases(cluster([['bring up the lab', 152_000]]));
  t.same(cut, { upMs: 152_000, warm: 'no (--fresh)' });
  t.throws(() => bringUpPhases({}), /no run with steps/);
});

t.test('the table: each phase, the raw floor, the ratios; a missing figure is a dash', async (t) => {
  const table = bringUpTable([
    {
      topology: '1+1',
      harness: { upMs: 100_000, installMs: 50_000, readyMs: 10_000, toReadyMs: 160_000, warm: 'no' },
      rawUpMs: 80_000,
    },
    { topology: '3+2', harness: { upMs: 180_000, warm: 'no' } },
  ]);
  const lines = table.split('\n');
  t.equal(lines.length, 4);
  t.match(lines[0], /^\| topology \| VMs up \(harness\) \|.*\| VMs up vs first row \|$/);
  t.equal(lines[2], '| `1+1` | 100.0 s | 50.0 s | 10.0 s | 160.0 s | 80.0 s | 1.25x | 1.00x |');
  t.equal(lines[3], '| `3+2` | 180.0 s | — | — | — | — | — | 1.80x |');
  for (const l of lines) t.equal(l.split('|').length, 10, `eight columns: ${l.slice(0, 30)}`);
});

t.test('topology arguments', async (t) => {
  t.same(parseTopologyArg('3+2'), { servers: 3, clients: 2 });
  t.same(parseTopologyArg(' 1+1 '), { servers: 1, clients: 1 });
  t.equal(parseTopologyArg('3x2'), undefined);
  t.equal(parseTopologyArg('3+'), undefined);
});
