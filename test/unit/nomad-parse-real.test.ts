// lib/nomad/parse.ts against payloads captured from a real Nomad 1.9.3 agent, wherever they sit
// under test/fixtures/nomad/real-1.9.3/ (allocation.json, nodes.json, node.json); skips without them.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { ApiAllocation, ApiNode } from '../../lib/nomad/api-types.js';
import { toAllocSnap, toNodeSnap } from '../../lib/nomad/parse.js';

const root = fileURLToPath(new URL('../fixtures/nomad/real-1.9.3/', import.meta.url));
const files = existsSync(root)
  ? readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) =>
      /(^|\/)(allocation|nodes|node)\.json$/.test(f),
    )
  : [];

if (files.length === 0) t.plan(0, 'no real Nomad 1.9.3 capture under test/fixtures/nomad/real-1.9.3/');
for (const f of files) {
  t.test(f, async (t) => {
    const raw = JSON.parse(readFileSync(join(root, f), 'utf8')) as unknown;
    if (f.endsWith('allocation.json')) {
      const api = raw as ApiAllocation;
      const a = toAllocSnap(api);
      t.equal(a.id, api.ID);
      t.equal(a.address, api.NetworkStatus?.Address || undefined);
      t.equal(a.previousAllocation, api.PreviousAllocation || undefined);
      t.ok(
        a.ports.every((p) => p.value > 0 && p.to > 0),
        'ports have host and inner port',
      );
      for (const task of Object.values(a.tasks)) {
        t.ok(
          task.events.every((e) => e.timeMs > 1.6e12 && e.timeMs < 2.2e12 && e.type !== ''),
          'event times in ms',
        );
        t.ok(
          task.startedAt === undefined || !Number.isNaN(Date.parse(task.startedAt)),
          'startedAt is a time or undefined',
        );
      }
    } else {
      for (const n of (Array.isArray(raw) ? raw : [raw]) as ApiNode[]) {
        const s = toNodeSnap(n);
        t.match(s, { id: n.ID, status: /^(initializing|ready|down|disconnected)$/ });
      }
    }
  });
}
