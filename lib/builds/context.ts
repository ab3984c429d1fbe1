// What resolving a build needs from the outside: where the cache is, the releases site, the console, and the effects.
import type { Logger } from '../log/events.js';
import type { RunCommand } from '../exec/run.js';
import type { Deadline } from '../time/deadlines.js';
import type { Fetch } from './http.js';
import { cacheRoot } from './cache.js';
import { performance } from 'node:perf_hooks';

export interface BuildContext {
  /** ${XDG_CACHE_HOME:-~/.cache}/nomad-reboot-harness/builds (cache.ts cacheRoot) */
  cacheRoot: string;
  /** base URL of the releases layout (the official site or a mirror) */
  releasesUrl: string;
  /** public key file a mirror signs its SHA256SUMS with; default: HashiCorp's key shipped in lib/builds */
  releasesKey?: string;
  /** relative paths in specs are taken from here */
  cwd: string;
  /** expands `~/` in specs */
  home: string;
  /** progress (phases with elapsed time) and warnings */
  logger: Logger;
  /** performance.now() when resolving began: log events carry the time since then */
  started?: number;
  /** an overall deadline (Ctrl-C aborts it); each step also has its own */
  deadline?: Deadline;
  /** the environment source builds run in (PATH for go and git, GOFLAGS, GOCACHE, …); default process.env */
  env?: Record<string, string | undefined>;
  run?: RunCommand;
  fetch?: Fetch;
}

/** A context from the harness config and the process's environment (XDG_CACHE_HOME, HOME) with real effects. */
export function buildContext(o: {
  builds: { releasesUrl: string; releasesKey: string | undefined };
  env: Record<string, string | undefined>;
  cwd: string;
  home: string;
  logger: Logger;
  deadline?: Deadline;
}): BuildContext {
  return {
    cacheRoot: cacheRoot(o.env, o.home),
    releasesUrl: o.builds.releasesUrl,
    ...(o.builds.releasesKey ? { releasesKey: o.builds.releasesKey } : {}),
    cwd: o.cwd,
    home: o.home,
    started: performance.now(),
    logger: o.logger,
    env: o.env,
    ...(o.deadline ? { deadline: o.deadline } : {}),
  };
}

/** Milliseconds since resolving began (the `t` of log events). */
export const elapsedMs = (ctx: BuildContext): number =>
  Math.round(performance.now() - (ctx.started ?? performance.now()));

/** Log a progress line. */
export const info = (ctx: BuildContext, message: string): void =>
  ctx.logger({ kind: 'info', t: elapsedMs(ctx), message });

/** Log a warning. */
export const warn = (ctx: BuildContext, message: string): void =>
  ctx.logger({ kind: 'warn', t: elapsedMs(ctx), message });
