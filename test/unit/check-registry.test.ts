// The registry of checks (lib/checks/registry.ts): the shipped scenarios' lists, each check one whole object under an
// id no other check has, so list, --expect, reports and the README all name the same checks.
import t from 'tap';
import { registryOf } from '../../lib/checks/registry.js';
import type { CheckInfo } from '../../lib/model/check.js';
import { SCENARIOS, SHIPPED_CHECKS } from '../../lib/cli/scenarios.js';
import { formerIds } from '../../lib/checks/expect-ids.js';

const checkIn = (id: string) => SHIPPED_CHECKS.find((c) => c.id === id);
const CHECK_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** The longest `passesWhen` a shipped check may have: a sentence a table cell and a console line can hold. */
const PASSES_WHEN_MAX = 200;

/**
 * What is wrong with a list of checks as a registry: an id given twice (two meanings for one name), or an old id
 * (`formerly`) claimed by two checks or equal to the check's own id.
 */
function registryProblems(checks: readonly CheckInfo[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const c of checks) {
    if (seen.has(c.id)) out.push(`check id ${c.id} is defined twice`);
    seen.add(c.id);
  }
  const former = new Map<string, string>();
  for (const c of checks) {
    for (const old of c.formerly ?? []) {
      if (old === c.id) out.push(`check ${c.id} lists its own id as a former one`);
      else if (former.has(old)) out.push(`former id ${old} is claimed by ${former.get(old)} and ${c.id}`);
      else former.set(old, c.id);
    }
  }
  return out;
}

t.test('every shipped check has an id, a title, when it passes, and a judge', async (t) => {
  t.ok(SHIPPED_CHECKS.length > 0, 'the registry is not empty');
  for (const c of SHIPPED_CHECKS) {
    t.match(c.id, CHECK_ID, `${c.id}: a plain id`);
    t.ok(typeof c.title === 'string' && c.title.trim(), `${c.id}: a title`);
    t.ok(typeof c.passesWhen === 'string' && c.passesWhen.trim(), `${c.id}: says when it passes`);
    t.type(c.judge, 'function', `${c.id}: a judge`);
    if (c.underFault !== undefined) t.type(c.underFault, 'function', `${c.id}: underFault is a function`);
    for (const old of c.formerly ?? []) t.match(old, CHECK_ID, `${c.id}: former id ${old} is a plain id`);
    for (const rule of c.explains ?? []) {
      t.type(rule.when, 'function', `${c.id}: each explains rule has its condition`);
      t.ok(rule.checks.length > 0, `${c.id}: each explains rule names checks`);
      for (const other of rule.checks)
        t.equal(checkIn(other.id), other, `${c.id} explains ${other.id}, a registered check`);
    }
  }
});

t.test('every passesWhen is one short sentence; the long explanation is in details', async (t) => {
  const tooLong = SHIPPED_CHECKS.filter((c) => c.passesWhen.length > PASSES_WHEN_MAX).map(
    (c) => `${c.id}: ${c.passesWhen.length} characters (move the explanation to details)`,
  );
  t.same(tooLong, [], `no passesWhen over ${PASSES_WHEN_MAX} characters`);
  for (const c of SHIPPED_CHECKS) {
    t.notMatch(c.passesWhen, /\n/, `${c.id}: passesWhen is one line`);
    t.notMatch(c.passesWhen, /\.\s/, `${c.id}: passesWhen is one sentence`);
    if (c.details !== undefined)
      t.ok(c.details.length > c.passesWhen.length, `${c.id}: details say more than passesWhen`);
  }
  t.ok(
    SHIPPED_CHECKS.some((c) => c.details),
    'some checks carry details (docs/checks.md renders them)',
  );
});

t.test('ids are unique across the registry', async (t) => {
  t.same(registryProblems(SHIPPED_CHECKS), []);
  t.equal(new Set(SHIPPED_CHECKS).size, SHIPPED_CHECKS.length, 'no check registered twice');
  // The rule can fail: the two meanings `client-rebooted` and `unique-ips` had once.
  const twice = [
    { id: 'client-rebooted', title: 'a', passesWhen: 'p' },
    { id: 'client-rebooted', title: 'b', passesWhen: 'q' },
  ];
  t.same(registryProblems(twice), ['check id client-rebooted is defined twice']);
  const claimed = [
    { id: 'a', title: 'a', passesWhen: 'p', formerly: ['old'] },
    { id: 'b', title: 'b', passesWhen: 'q', formerly: ['old', 'b'] },
  ];
  t.same(registryProblems(claimed), [
    'former id old is claimed by a and b',
    'check b lists its own id as a former one',
  ]);
});

t.test('every shipped scenario lists registered check objects, each once', async (t) => {
  for (const s of SCENARIOS) {
    t.ok(s.checks.length > 0, `${s.name} lists its checks`);
    for (const c of s.checks) t.equal(checkIn(c.id), c, `${s.name}: ${c.id} is the registered object`);
    const ids = s.checks.map((c) => c.id);
    t.equal(new Set(ids).size, ids.length, `${s.name}: no check listed twice`);
    // An old id must name one check of the scenario, never another check it lists.
    t.same(
      s.checks.flatMap((c) => c.formerly ?? []).filter((old) => ids.includes(old)),
      [],
      `${s.name}: former ids are free`,
    );
    t.same(
      formerIds(s.checks),
      [...new Set(s.checks.flatMap((c) => c.formerly ?? []))],
      `${s.name}: every former id still reaches its check`,
    );
  }
});

t.test('the registry is every check the shipped scenarios list, each object once, in first-listed order', async (t) => {
  const a = { id: 'a', title: 'a', passesWhen: 'p', judge: () => ({ status: 'passed' as const, message: '' }) };
  const b = { ...a, id: 'b' };
  const c = { ...a, id: 'c' };
  t.same(
    registryOf([[a, b], [b, c], [a]]).map((x) => x.id),
    ['a', 'b', 'c'],
    'a check two scenarios list is registered once',
  );
  // two objects under one id stay two entries, so registryProblems sees the second meaning
  t.same(registryProblems(registryOf([[a], [{ ...a, title: 'other' }]])), ['check id a is defined twice']);
  const listed = new Set(SCENARIOS.flatMap((s) => s.checks));
  t.same(new Set(SHIPPED_CHECKS), listed, 'SHIPPED_CHECKS is exactly what the scenarios list');
});
