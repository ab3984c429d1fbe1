// A command line parsed as the CLI parses it (parseCliCollecting), its problems thrown as one ConfigError: what the
// tests of the tokenizer assert on.
import { parseCliCollecting } from '../../lib/cli/args.js';
import type { CliCommand, ParsedArgs } from '../../lib/cli/command.js';
import { COMMANDS } from '../../lib/cli/commands/index.js';
import { ConfigError } from '../../lib/errors.js';

/** Parse argv (without node and script). Every unknown, misplaced or incomplete option is reported at once (exit 2). */
export function parseCli(argv: string[], commands: readonly CliCommand[] = COMMANDS): ParsedArgs {
  const { args, problems } = parseCliCollecting(argv, commands);
  if (problems.length) throw new ConfigError(problems);
  return args;
}
