// `reboot-harness completion bash|zsh|fish`: the shell completion script, from the commands' own tables.
import { EXIT } from '../../errors.js';
import type { CliCommand } from '../command.js';
import { completionScript, completionSpec, SHELLS, type Shell } from '../completion.js';
import { assertInput } from '../input.js';
import { SCENARIOS } from '../scenarios.js';

export const completion: CliCommand = {
  name: 'completion',
  summary: 'print the shell completion script for bash, zsh or fish',
  usage: [
    'reboot-harness completion bash|zsh|fish',
    '',
    "Prints a completion script for the shell, made from the same option table as --help (commands, each one's",
    'options, the values a key allows, files where a path goes, the shipped scenario names). Load it with:',
    '  bash: source <(reboot-harness completion bash)     (or save it in /etc/bash_completion.d/reboot-harness)',
    '  zsh:  source <(reboot-harness completion zsh)      (after compinit; or save it as _reboot-harness in $fpath)',
    '  fish: reboot-harness completion fish > ~/.config/fish/completions/reboot-harness.fish',
  ],
  exits: '0 printed; 2 no shell or one it does not know',
  options: [],
  configFlags: [],
  positionals: { what: 'shell', complete: SHELLS },
  async run(args, deps) {
    const [shell, ...extra] = args.positionals;
    const known = (SHELLS as readonly string[]).includes(shell ?? '');
    const message = shell === undefined ? 'is required' : extra.length ? 'is one word' : 'is not a shell this knows';
    const fix = `give one of: ${SHELLS.join(', ')} (e.g. source <(reboot-harness completion bash))`;
    const value = extra.length ? args.positionals : shell;
    assertInput({
      argv: deps.argvProblems,
      command: known && !extra.length ? [] : [{ field: 'shell', value, message, fix }],
    });
    const commands = completionSpec(deps.commands);
    deps.out(completionScript(shell as Shell, { commands, scenarios: SCENARIOS.map((x) => x.name) }));
    return EXIT.OK;
  },
};
