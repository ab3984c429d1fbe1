// A user scenario folder with one scenario that brings up no lab (`needsNomad: false`) and judges one check at once,
// passed or failed: whole runs, reports, matrices and merge through the real CLI with nothing created.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Write `<dir>/package.json` and `<dir>/<name>.ts` (scenario `name`, its one check `name` judged `status`). */
export function writeLablessScenario(dir: string, name: string, status: 'passed' | 'failed' = 'passed'): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const judged = status === 'passed' ? `{ status: 'passed', message: 'ok' }` : `{ status: 'failed', message: 'no' }`;
  writeFileSync(
    join(dir, `${name}.ts`),
    `import { defineScenario, defineCheck, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck({ id: '${name}', title: '${name}', passesWhen: '${status === 'passed' ? 'always' : 'never'}', judge: () => (${judged}) })];
export default defineScenario({ name: '${name}', summary: 'no lab', needsNomad: false, roles: ['client'], checks: CHECKS,
  async run() { return judgeAll(CHECKS, {}); } });
`,
  );
  return dir;
}

/**
 * Write `<dir>/package.json` and `<dir>/<name>.ts`: scenario `name` whose one check `name` is judged `status` and
 * whose `run()` has the body `body` (it may return a result of any shape, `judgeAll(CHECKS, {})`, throw, or leave
 * work behind).
 */
export function writeScenarioWithBody(
  dir: string,
  name: string,
  body: string,
  status: 'passed' | 'failed' = 'passed',
): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(
    join(dir, `${name}.ts`),
    `import { defineScenario, defineCheck, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck({ id: '${name}', title: '${name}', passesWhen: 'always', judge: () => ({ status: '${status}', message: '${status === 'passed' ? 'ok' : 'bad'}' }) })];
export default defineScenario({ name: '${name}', summary: 'no lab', needsNomad: false, roles: ['client'], checks: CHECKS,
  async run() { ${body} } });
`,
  );
  return dir;
}

/**
 * The source of a labless scenario `name` whose one check `c` is judged `status` (message: the status), for a
 * `t.testdir` layout: the CLI-pass files' scenario, written once.
 */
export const lablessScenarioSource = (name: string, status: 'passed' | 'failed'): string =>
  `import { defineScenario, defineCheck, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck({ id: 'c', title: 'c', passesWhen: 'always', judge: () => ({ status: '${status}', message: '${status}' }) })];
export default defineScenario({ name: '${name}', summary: 'no lab', needsNomad: false, roles: ['client'], checks: CHECKS,
  async run() { return judgeAll(CHECKS, {}); } });
`;
