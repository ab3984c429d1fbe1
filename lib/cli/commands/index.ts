// Every command the CLI dispatches, in the order --help lists them: adding a command is its module and one line here.
import type { CliCommand } from '../command.js';
import { run } from './run.js';
import { compare } from './compare.js';
import { bisect } from './bisect.js';
import { matrix } from './matrix.js';
import { list } from './list.js';
import { doctor } from './doctor.js';
import { setup } from './setup.js';
import { destroy } from './destroy.js';
import { merge } from './merge.js';
import { build } from './build.js';
import { completion } from './completion.js';
import { login } from './login.js';
import { listLabs } from './list-labs.js';

export const COMMANDS: readonly CliCommand[] = [
  run,
  compare,
  bisect,
  matrix,
  list,
  doctor,
  setup,
  destroy,
  merge,
  build,
  completion,
  login,
  listLabs,
];
