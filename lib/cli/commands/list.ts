// `reboot-harness list [--json] [--scenarios dir]`: the shipped scenarios, then the user's (each with its file).
import { EXIT, type ConfigProblem } from '../../errors.js';
import type { CliCommand } from '../command.js';
import { assertInput, readHarnessFile } from '../input.js';
import { allScenarios, listText, needsOf } from '../scenarios.js';
import { userScenarios } from '../session-input.js';
import { CONFIG } from './options.js';

/** Schema id of `list --json`: the scenarios, each with its checks. */
export const SCENARIOS_JSON_SCHEMA = 'nomad-reboot-harness/scenarios@1';

export const list: CliCommand = {
  name: 'list',
  summary: 'list the scenarios and what each checks',
  usage: [
    'reboot-harness list [--json] [--scenarios <dir>]',
    '',
    'The shipped scenarios, then your own from --scenarios / HARNESS_SCENARIOS_DIR / scenarios_dir (each with its file;',
    'docs/scenarios.md); every problem with any of your files is reported at once (exit 2).',
  ],
  exits: '0 listed; 2 usage error or a scenario file of yours that does not load; 70 harness bug',
  options: [CONFIG],
  configFlags: ['json', 'scenarios'],
  positionals: { what: 'argument', max: 0, complete: [] },
  async run(args, deps) {
    const files: ConfigProblem[] = [];
    const { extra, problems } = await userScenarios(args, deps, await readHarnessFile(args, deps, files));
    assertInput({ argv: deps.argvProblems, files, userScenarios: problems });
    const json = allScenarios(extra).map((s) => ({
      name: s.name,
      summary: s.summary,
      needsNomad: s.needsNomad,
      needs: needsOf(s),
      ...(s.jobs ? { jobs: s.jobs } : {}),
      checks: s.checks.map(({ id, title, passesWhen }) => ({ id, title, passesWhen })),
      ...('file' in s ? { file: s.file } : {}),
    }));
    const doc = { schema: SCENARIOS_JSON_SCHEMA, scenarios: json };
    deps.out(args.values['json'] ? `${JSON.stringify(doc, null, 2)}\n` : `${listText(extra)}\n`);
    return EXIT.OK;
  },
};
