// The console logger every command writes its progress with: stderr, coloured on a terminal unless NO_COLOR or CI.
import { consoleLogger } from '../log/format.js';
import type { Logger } from '../log/events.js';
import type { HarnessConfig } from '../config/schema.js';
import type { CliDeps } from './deps.js';

export const colorOn = (deps: Pick<CliDeps, 'isTTY' | 'env'>): boolean =>
  deps.isTTY && !deps.env['NO_COLOR'] && !deps.env['CI'];

export function loggerFor(config: HarnessConfig, deps: Pick<CliDeps, 'isTTY' | 'env' | 'err'>): Logger {
  return consoleLogger(deps.err, {
    verbose: config.output.verbose,
    quiet: config.output.quiet || config.output.json,
    color: colorOn(deps),
  });
}
