// The README's check tables come from the check definitions: one definition per check, never a second copy to drift.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { SCENARIOS } from '../../lib/cli/scenarios.js';
import { renderCheckTable, tableMarkers, withCheckTables } from '../../lib/report/check-table.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

t.test('every shipped scenario has its generated table in the README, and it is current', async (t) => {
  for (const s of SCENARIOS) {
    const [open, close] = tableMarkers(s.name);
    t.ok(README.includes(open) && README.includes(close), `${s.name}: the README has its table markers`);
  }
  t.equal(withCheckTables(README, SCENARIOS), README, 'the tables match the definitions (run `npm run docs:checks` after changing a check)');
});

t.test('the table renders each check once, in order, escaping pipes', async (t) => {
  const table = renderCheckTable([{ id: 'a', title: 'A', passesWhen: 'x | y\nz' }, { id: 'b', title: 'B', passesWhen: 'w' }]);
  t.equal(table, '| check | passes when |\n| --- | --- |\n| `a` | x \\| y z |\n| `b` | w |');
  const [open, close] = tableMarkers('s');
  const stale = `text\n${open}\n| old |\n${close}\nmore`;
  t.equal(withCheckTables(stale, [{ name: 's', checks: [{ id: 'a', title: 'A', passesWhen: 'p' }] }]), `text\n${open}\n| check | passes when |\n| --- | --- |\n| \`a\` | p |\n${close}\nmore`);
});
