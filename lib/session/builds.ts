// The build layer as the pipeline uses it: every spec of the plan checked at once before anything exists (a path is
// also run with `version`: it must be a Nomad agent build), then each resolved (downloaded and verified, built from
// source, or taken as it is), cached by lib/builds.
import { homedir } from 'node:os';
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError, type ConfigProblem } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import type { Logger } from '../log/events.js';
import type { BuildInfo } from '../model/session.js';
import type { BuildRef } from '../plan/session-plan.js';
import { buildContext, type BuildContext } from '../builds/context.js';
import { planBuilds, resolvePlanned, specIdentity, type SpecInput } from '../builds/resolve.js';
import { preflightBuild } from '../builds/preflight.js';
import { parseBuildSpec } from '../builds/spec.js';

/**
 * `git:` followed by a URL (`git:https://<token>@github.com/…`): git: takes the directory of a clone, and read as a
 * path the URL's credentials would be printed in every message naming that path (the "@" before the host is read as
 * the ref's start, so no URL is left for the redactor to recognise).
 */
export function gitUrlProblem(text: string, field: string): ConfigProblem | undefined {
  const m = /^\s*git:([a-z][a-z0-9+.-]*:\/\/|[^/@\s]+@[^:/\s]+:)/i.exec(text);
  if (!m) return undefined;
  return {
    field,
    value: text,
    message: 'names a URL: git: takes the directory of a clone, not a repository to fetch',
    fix: 'clone it first (git clone <url> ~/src/nomad, its credentials kept out of this command line), then give git:~/src/nomad[@<ref>]',
  };
}

/** planBuilds with a git: spec naming a URL refused first, never read as a path (see gitUrlProblem). */
export async function planSpecs(inputs: readonly SpecInput[], ctx: BuildContext): ReturnType<typeof planBuilds> {
  const urls = inputs.flatMap((i) => gitUrlProblem(i.text, i.field) ?? []);
  if (!urls.length) return planBuilds(inputs, ctx);
  const rest = inputs.filter((i) => !gitUrlProblem(i.text, i.field));
  const plan = rest.length ? await planBuilds(rest, ctx) : { planned: [] };
  return { problems: [...urls, ...('problems' in plan ? plan.problems : [])] };
}

interface BuildLayerDeps {
  env: Record<string, string | undefined>;
  /** a context with stand-in effects (tests); default the real one */
  context?: (ref: Pick<BuildRef, 'cwd'>, config: HarnessConfig, logger: Logger, signal?: AbortSignal) => BuildContext;
}

/** The real build layer for the CLI (lib/cli/real-deps.ts). */
export function createBuildLayer(deps: BuildLayerDeps) {
  const ctxFor =
    deps.context ??
    ((ref: Pick<BuildRef, 'cwd'>, config: HarnessConfig, logger: Logger, signal?: AbortSignal) =>
      buildContext({
        builds: config.builds,
        env: deps.env,
        cwd: ref.cwd,
        home: deps.env['HOME'] || homedir(),
        logger,
        ...(signal ? { deadline: { at: Number.POSITIVE_INFINITY, signal } } : {}),
      }));
  const resolved = new Map<string, BuildInfo>();
  return {
    /** Every problem of every spec: syntax, missing files, git trees and refs, Go, the key file; a path is run with `version`. */
    async check(refs: readonly BuildRef[], config: HarnessConfig, logger: Logger): Promise<ConfigProblem[]> {
      const problems: ConfigProblem[] = [];
      for (const ref of refs) {
        const ctx = ctxFor(ref, config, logger);
        const plan = await planSpecs([{ text: ref.spec, field: ref.field }], ctx);
        if ('problems' in plan) {
          problems.push(...plan.problems);
          continue;
        }
        const parsed = parseBuildSpec(ref.spec, ref.field, {
          exists: (p) => existsSync(isAbsolute(p) ? p : resolve(ref.cwd, p)),
          home: ctx.home,
        });
        if ('spec' in parsed && parsed.spec.kind === 'path') {
          try {
            await preflightBuild(resolve(ref.cwd, parsed.spec.path), {
              field: ref.field,
              spec: ref.spec,
              logger,
              ...(ctx.run ? { run: ctx.run } : {}),
            });
          } catch (err) {
            if (err instanceof ConfigError) problems.push(...err.problems);
            else throw err;
          }
        }
      }
      return problems;
    },
    /** Resolve one spec (download, build or take the path); its error (exit 2 or 3) is thrown as it is. */
    async resolve(ref: BuildRef, config: HarnessConfig, logger: Logger, signal?: AbortSignal): Promise<BuildInfo> {
      const ctx = ctxFor(ref, config, logger, signal);
      const plan = await planSpecs([{ text: ref.spec, field: ref.field }], ctx);
      if ('problems' in plan) throw new ConfigError(plan.problems);
      // One build under several spellings (a matrix naming 1.9.7 and v1.9.7) is resolved and verified once.
      const id = `${config.builds.releasesUrl}\u0000${specIdentity(plan.planned[0]!.spec, ref.cwd)}`;
      const earlier = resolved.get(id);
      if (earlier) return { ...earlier, spec: ref.spec };
      const [outcome] = await resolvePlanned(plan.planned, ctx);
      if (!outcome)
        throw new ConfigError([
          {
            field: ref.field,
            value: ref.spec,
            message: 'resolved to nothing',
            fix: 'give a release version, git:<dir>[@<ref>] or a path',
          },
        ]);
      if ('error' in outcome) throw outcome.error;
      resolved.set(id, outcome.build);
      return outcome.build;
    },
  };
}
