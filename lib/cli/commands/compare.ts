// `reboot-harness compare [scenario] --before <build> --after <build>`: one scenario on two builds, side by side.
import type { CliCommand } from '../command.js';
import { sessionCommand } from '../session-command.js';
import { CONFIG, EXPECT, FRESH, PLAN } from './options.js';

export const compare: CliCommand = {
  name: 'compare',
  summary: 'run a scenario on two Nomad builds (--before, --after) and show which checks flipped',
  usage: [
    'reboot-harness compare [scenario] --before <build> --after <build> [run options]    (default scenario: bridge-exec-reboot)',
    '',
    'Runs the scenario once per build, one after the other (each a normal run with its own run id and VMs), then prints',
    'every check side by side (before | after | flipped?). One JUnit file with a <testsuite> per build, named',
    '<scenario>@<nomad version> (@before/@after when the versions are unknown or equal); the JSON summary has a',
    '"comparison" section. --expect applies to the after build; the exit code is the after build\'s.',
  ],
  exits:
    '0/1 the after build met / did not meet its expectations; 2 usage or configuration error; 3 infrastructure error; 70 harness bug; 130 interrupted',
  options: [
    CONFIG,
    EXPECT,
    {
      name: 'before',
      type: 'string',
      arg: '<build>',
      file: 'read',
      doc: 'the Nomad build released so far (linux/amd64)',
    },
    { name: 'after', type: 'string', arg: '<build>', file: 'read', doc: 'the candidate build being validated' },
    PLAN,
    FRESH,
  ],
  configFlags: 'all run flags',
  // Note: a repeat is run's (--repeat N, a flake rate); the planner refuses it here, so the help must not offer it
  notFlags: ['repeat'],
  positionals: { what: 'scenario', complete: 'scenario' },
  run: (args, deps) =>
    sessionCommand({
      command: compare,
      args,
      deps,
      plan: 'compare',
      installsOwnBuilds: true,
      named: (all) => [args.positionals[0] ?? all[0]!.name],
    }),
};
