// Pure: is a module's default export a scenario? Every problem of one file at once, each naming the fix.
import type { ConfigProblem } from '../errors.js';
import type { CheckInfo } from '../model/check.js';
import type { Scenario } from '../run/scenario.js';

/** Scenario names become run ids, suite and matrix cell names, and directories: keep them plain. */
const SCENARIO_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const CHECK_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
const API = "import { defineScenario } from 'nomad-reboot-harness/scenario'";
const SHAPE = 'export default defineScenario({ name, summary, needsNomad, checks, run })';

/** Problems with `exported` as a scenario (empty when it is one); `field` names the file in each problem. */
export function scenarioShapeProblems(field: string, exported: unknown): ConfigProblem[] {
  if (exported === undefined) {
    const fix = `end the file with \`export default defineScenario({ ... })\` (${API})`;
    return [{ field, value: undefined, message: 'has no default export', fix }];
  }
  if (typeof exported !== 'object' || exported === null) {
    return [{ field, value: typeof exported, message: 'default export is not a scenario object', fix: SHAPE }];
  }
  const s = exported as Record<string, unknown>;
  const out: ConfigProblem[] = [];
  const bad = (key: string, message: string, fix: string) =>
    out.push({ field: `${field}: ${key}`, value: s[key], message, fix });
  if (typeof s['name'] !== 'string' || !SCENARIO_NAME.test(s['name'])) {
    bad('name', 'must be a lower-case name (letters, digits, -)', 'give the scenario a name such as "server-reboot"');
  }
  if (typeof s['summary'] !== 'string' || s['summary'].trim() === '') {
    bad('summary', 'must be a non-empty string', 'say in one line what the scenario proves');
  }
  if (typeof s['needsNomad'] !== 'boolean') {
    bad('needsNomad', 'must be true or false', 'true when the scenario installs Nomad (then it needs --nomad-binary)');
  }
  if (typeof s['run'] !== 'function') {
    bad('run', 'must be a function', 'add async run(ctx, env) { ...; return judgeAll(CHECKS, evidence) }');
  }
  const roles = s['roles'];
  if (
    roles !== undefined &&
    (!Array.isArray(roles) ||
      roles.length === 0 ||
      roles.some((r) => r !== 'server' && r !== 'client') ||
      new Set(roles).size !== roles.length)
  ) {
    bad(
      'roles',
      'must list the machines the scenario brings up, each once: "server", "client"',
      "remove it (server and client), or e.g. roles: ['client']",
    );
  }
  if (s['validate'] !== undefined && typeof s['validate'] !== 'function') {
    bad('validate', 'must be a function when given', 'remove it, or make it (config) => problems');
  }
  out.push(...checkProblems(field, s['checks']));
  return out;
}

function checkProblems(field: string, checks: unknown): ConfigProblem[] {
  const where = `${field}: checks`;
  if (!Array.isArray(checks) || checks.length === 0) {
    const fix = 'list its checks: checks: [defineCheck({ id, title, passesWhen, judge }), ...]';
    return [{ field: where, value: checks, message: 'must declare at least one check', fix }];
  }
  const out: ConfigProblem[] = [];
  const seen = new Set<string>();
  checks.forEach((c: unknown, i) => {
    const k = (c ?? {}) as Record<string, unknown>;
    const id = k['id'];
    const at = `${where}[${i}]`;
    if (typeof id !== 'string' || !CHECK_ID.test(id)) {
      const message = 'must be a lower-case id (letters, digits, -)';
      out.push({ field: `${at}.id`, value: id, message, fix: 'e.g. id: "leader-elected"' });
    } else if (seen.has(id)) {
      out.push({ field: `${at}.id`, value: id, message: 'is declared twice', fix: 'give each check its own id' });
    } else seen.add(id);
    for (const key of ['title', 'passesWhen']) {
      const v = k[key];
      if (typeof v === 'string' && v.trim() !== '') continue;
      const what = key === 'title' ? 'title' : 'one line saying when it passes';
      const fix = `write the check's ${what}`;
      out.push({ field: `${at}.${key}`, value: v, message: 'must be a non-empty string', fix });
    }
    if (k['details'] !== undefined && typeof k['details'] !== 'string') {
      const fix = "write the check's long explanation as a string, or leave details out";
      out.push({ field: `${at}.details`, value: k['details'], message: 'must be a string when given', fix });
    }
    if (typeof k['judge'] !== 'function') {
      const fix = 'make it with defineCheck({ id, title, passesWhen, judge: (evidence) => ({ status, message }) })';
      out.push({
        field: `${at}.judge`,
        value: typeof k['judge'],
        message: "must be a function (the check's pure judge)",
        fix,
      });
    }
  });
  return out;
}

/**
 * The problems of user checks that take the id of a shipped check (or an older name of one): expectations, JUnit case
 * names and `run --all` go by id, so that id would mean two checks.
 */
export function checkIdProblems(
  loaded: readonly { file: string; scenario: Scenario }[],
  shipped: readonly CheckInfo[],
): ConfigProblem[] {
  return loaded.flatMap(({ file, scenario }) =>
    scenario.checks.flatMap((check, i) => {
      const taken = shipped.find((c) => c !== check && (c.id === check.id || c.formerly?.includes(check.id)));
      if (!taken) return [];
      const fix = 'give your check an id of its own (`reboot-harness list` shows the shipped ones)';
      const message = `is the id of the shipped check "${taken.title}" (${taken.id})`;
      return [{ field: `${file}: checks[${i}].id`, value: check.id, message, fix }];
    }),
  );
}

/** The problems of names taken twice: by a shipped scenario (`reserved`) or by two files of the directory. */
export function duplicateNameProblems(
  loaded: readonly { file: string; scenario: Scenario }[],
  reserved: readonly string[],
): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  const first = new Map<string, string>();
  for (const { file, scenario } of loaded) {
    const name = scenario.name;
    if (reserved.includes(name)) {
      const fix = 'rename the scenario (names must be unique; `reboot-harness list` shows the shipped ones)';
      out.push({ field: `${file}: name`, value: name, message: 'is the name of a shipped scenario', fix });
    } else if (first.has(name)) {
      const message = `is already used by ${first.get(name)}`;
      out.push({ field: `${file}: name`, value: name, message, fix: 'rename one of the two scenarios' });
    } else first.set(name, file);
  }
  return out;
}
