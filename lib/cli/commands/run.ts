// `reboot-harness run [scenario] | --all`: one scenario (or every one) on a lab, with reports and a verdict.
import type { CliCommand } from '../command.js';
import { sessionCommand } from '../session-command.js';
import { CONFIG, EXPECT, FRESH, PLAN } from './options.js';

export const run: CliCommand = {
  name: 'run',
  summary: 'run a scenario (or --all) on VMs (its warm lab reverted, or fresh ones with --fresh) and write reports',
  usage: [
    'reboot-harness run [scenario] [options]    (default scenario: bridge-exec-reboot)',
    'reboot-harness run --all [options]',
  ],
  exits:
    '0 every check met its expectation; 1 a check did not; 2 usage or configuration error (nothing created); 3 infrastructure error before a verdict; 70 harness bug; 130 interrupted',
  options: [
    CONFIG,
    EXPECT,
    { name: 'all', type: 'boolean', doc: 'every scenario (Nomad scenarios are skipped without a build)' },
    PLAN,
    FRESH,
  ],
  configFlags: 'all run flags',
  positionals: { what: 'scenario', complete: 'scenario' },
  run: (args, deps) =>
    sessionCommand({
      command: run,
      args,
      deps,
      plan: 'run',
      named: (all) => (args.values['all'] ? all.map((s) => s.name) : [args.positionals[0] ?? all[0]!.name]),
    }),
};
