// The generated tables in docs/ come from the code's own tables (the check registry through the scenarios' lists; the
// configuration key table and the defaults; the fault registry): never a second copy to drift.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { SCENARIOS } from '../../lib/cli/scenarios.js';
import {
  DETAILS_MARKERS,
  renderCheckDetails,
  renderCheckTable,
  tableMarkers,
  withCheckTables,
} from '../../lib/report/check-table.js';
import { CONFIG_TABLE_MARKERS, renderConfigTable, withConfigTable } from '../../lib/config/doc-table.js';
import { FIELDS } from '../../lib/config/table.js';
import { DEFAULTS } from '../../lib/config/schema.js';
import { FAULT_TABLE_MARKERS, renderFaultTable, withFaultTable } from '../../lib/faults/doc-table.js';
import { FAULTS } from '../../lib/faults/registry.js';

const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8');

t.test('every shipped scenario has its generated table in docs/checks.md, and it is current', async (t) => {
  const doc = read('docs/checks.md');
  for (const s of SCENARIOS) {
    const [open, close] = tableMarkers(s.name);
    t.ok(doc.includes(open) && doc.includes(close), `${s.name}: docs/checks.md has its table markers`);
  }
  t.ok(
    DETAILS_MARKERS.every((m) => doc.includes(m)),
    'docs/checks.md has the details markers',
  );
  for (const c of SCENARIOS.flatMap((s) => s.checks).filter((c) => c.details))
    t.ok(doc.includes(`\n#### \`${c.id}\`\n`), `${c.id}: its details are in docs/checks.md, where the table links`);
  t.equal(
    withCheckTables(doc, SCENARIOS),
    doc,
    'the tables match the registry (run `npm run docs` after changing a check)',
  );
});

t.test('the table renders each check once, in order, escaping pipes', async (t) => {
  const table = renderCheckTable([
    { id: 'a', title: 'A', passesWhen: 'x | y\nz' },
    { id: 'b', title: 'B', passesWhen: 'w' },
  ]);
  t.equal(table, '| check | passes when |\n| --- | --- |\n| `a` | x \\| y z |\n| `b` | w |');
  const [open, close] = tableMarkers('s');
  const stale = `text\n${open}\n| old |\n${close}\nmore`;
  t.equal(
    withCheckTables(stale, [{ name: 's', checks: [{ id: 'a', title: 'A', passesWhen: 'p' }] }]),
    `text\n${open}\n| check | passes when |\n| --- | --- |\n| \`a\` | p |\n${close}\nmore`,
  );
});

t.test('a check with details links from the table to one paragraph of them, each check once', async (t) => {
  const a = { id: 'a', title: 'A', passesWhen: 'short', details: 'long\n  and | more' };
  const b = { id: 'b', title: 'B', passesWhen: 'w' };
  t.equal(
    renderCheckTable([a, b]),
    '| check | passes when |\n| --- | --- |\n| [`a`](#a) | short |\n| `b` | w |',
    'only the check with details is a link',
  );
  t.equal(
    renderCheckDetails([{ checks: [a, b] }, { checks: [b, a] }]),
    '#### `a`\nA: long and | more.',
    'once, though two scenarios list it; none for a check without details',
  );
  const [open, close] = DETAILS_MARKERS;
  t.equal(
    withCheckTables(`x\n${open}\nold\n${close}\ny`, [{ name: 's', checks: [a] }]),
    `x\n${open}\n#### \`a\`\nA: long and | more.\n${close}\ny`,
    'the details between their markers are replaced',
  );
});

t.test('docs/config.md has every key of the table, with its default, and it is current', async (t) => {
  const doc = read('docs/config.md');
  t.ok(
    CONFIG_TABLE_MARKERS.every((m) => doc.includes(m)),
    'the markers are there',
  );
  t.equal(withConfigTable(doc, renderConfigTable(FIELDS, DEFAULTS)), doc, 'current (run `npm run docs`)');
  for (const f of FIELDS) t.ok(doc.includes(`| \`${f.yaml}\` |`), `${f.yaml} has a row`);
  t.match(doc, /\| `lab\.memory_mb` \| `--memory` \| {2}\| `768` \|/, 'a default as the schema has it');
  t.match(doc, /\| `reboot\.settle_quiet` \| `--settle-quiet` \| {2}\| `20s` \|/, 'seconds as a Go duration');
  t.match(doc, /\| `nomad_binary` \| `--nomad-binary` \| `NOMAD_BINARY` \| none \|/, 'no default: none');
});

t.test('docs/faults.md has the fault registry table, and it is current', async (t) => {
  const doc = read('docs/faults.md');
  t.ok(
    FAULT_TABLE_MARKERS.every((m) => doc.includes(m)),
    'the markers are there',
  );
  t.equal(withFaultTable(doc, renderFaultTable(FAULTS)), doc, 'current (run `npm run docs`)');
  for (const k of FAULTS.names) t.ok(doc.includes(`| \`${k}\` |`), `${k} has a row`);
});
