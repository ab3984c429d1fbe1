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
