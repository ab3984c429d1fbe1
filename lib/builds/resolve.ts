// Resolve build specs to checked binaries: every spec's problems first (all at once), then download or build each.
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { ConfigError, EXIT, HarnessError, InterruptedError, type ConfigProblem } from '../errors.js';
import { sha256File } from './cache.js';
import type { BuildContext } from './context.js';
import { preflightBuild } from './preflight.js';
import { resolveRelease } from './release.js';
import { buildSource } from './source.js';
import { planSource, type SourcePlan } from './source-plan.js';
import { NOMAD_PROFILE, type SourceProfile } from './source-profile.js';
import { parseBuildSpec, type BuildSpec } from './spec.js';
import type { ResolvedBuild } from '../model/build.js';
import { readInputFile } from '../input/read.js';

/** One build to resolve: the spec text and the field it came from (--nomad, --before, matrix nomad[2], …). */
export interface SpecInput {
  text: string;
  field: string;
}

/** The outcome per spec, in input order. */
export type SpecOutcome = { input: SpecInput; build: ResolvedBuild } | { input: SpecInput; error: HarnessError };

type Planned = { input: SpecInput; spec: BuildSpec; source?: SourcePlan };

/**
 * Parse and check every spec without downloading or building (paths exist, git trees and refs, Go's version, the
 * releases key file); all problems of all specs together, or the plans.
 */
export async function planBuilds(
  inputs: readonly SpecInput[],
  ctx: BuildContext,
  profile: SourceProfile = NOMAD_PROFILE,
): Promise<{ planned: Planned[] } | { problems: ConfigProblem[] }> {
  const problems: ConfigProblem[] = [];
  const planned: Planned[] = [];
  const abs = (p: string) => (isAbsolute(p) ? p : resolvePath(ctx.cwd, p));
  for (const input of inputs) {
    const parsed = parseBuildSpec(input.text, input.field, { exists: (p) => existsSync(abs(p)), home: ctx.home });
    if ('problem' in parsed) {
      problems.push(parsed.problem);
      continue;
    }
    const spec = parsed.spec;
    if (spec.kind === 'path' && !existsSync(abs(spec.path))) {
      // existsSync says false for a path that is there but cannot be followed (a symlink loop): say which
      const code = statCode(abs(spec.path));
      problems.push({
        field: input.field,
        value: input.text,
        message: code === 'ENOENT' ? `no file at ${abs(spec.path)}` : `cannot be read (${code}): ${abs(spec.path)}`,
        fix: 'give the path of a linux/amd64 nomad binary, a release version (1.9.7, latest), or git:<dir>[@<ref>]',
      });
    } else if (spec.kind === 'git') {
      const p = await planSource(input.text, input.field, spec.dir, spec.ref, ctx, profile);
      if ('problems' in p) problems.push(...p.problems);
      else planned.push({ input, spec, source: p.plan });
      continue;
    } else if (spec.kind === 'release' && ctx.releasesKey) {
      const what = await keyFileState(abs(ctx.releasesKey));
      if (what)
        problems.push({
          field: '--releases-key',
          value: ctx.releasesKey,
          message: what.message,
          fix:
            what.fix ??
            "give the public key file that signs the mirror's SHA256SUMS, or drop --releases-key for HashiCorp's",
        });
    }
    planned.push({ input, spec });
  }
  return problems.length ? { problems: dedupe(problems) } : { planned };
}

/** Resolve each planned spec in turn (downloads and builds are heavy: one at a time); failures are kept, not thrown. */
export async function resolvePlanned(planned: readonly Planned[], ctx: BuildContext): Promise<SpecOutcome[]> {
  const out: SpecOutcome[] = [];
  const ctxAbs = ctx.releasesKey ? { ...ctx, releasesKey: resolvePath(ctx.cwd, ctx.releasesKey) } : ctx;
  // One build under several spellings (1.9.7, v1.9.7, release:1.9.7; ./nomad and its absolute path) is resolved and
  // verified once; each spelling keeps its own text in the outcome.
  const seen = new Map<string, SpecOutcome>();
  for (const p of planned) {
    const id = specIdentity(p.spec, ctx.cwd);
    const hit = seen.get(id);
    if (hit) {
      out.push(
        'build' in hit ? { input: p.input, build: { ...hit.build, spec: p.input.text } } : { ...hit, input: p.input },
      );
      continue;
    }
    let outcome: SpecOutcome;
    try {
      outcome = { input: p.input, build: await resolveOne(p, ctxAbs) };
    } catch (err) {
      // Note: Ctrl-C ends the whole resolution, not just this spec.
      if (!(err instanceof HarnessError) || err instanceof InterruptedError) throw err;
      outcome = { input: p.input, error: err };
    }
    seen.set(id, outcome);
    out.push(outcome);
  }
  return out;
}

/** What a spec names, whatever its spelling: the same identity means the same build (`latest` stays its own). */
export function specIdentity(spec: BuildSpec, cwd: string): string {
  switch (spec.kind) {
    case 'release':
      return `release:${spec.version}`;
    case 'path':
      return `path:${resolvePath(cwd, spec.path)}`;
    case 'git':
      return `git:${resolvePath(cwd, spec.dir)}@${spec.ref ?? ''}`;
  }
}

async function resolveOne(p: Planned, ctx: BuildContext): Promise<ResolvedBuild> {
  const { text, field } = p.input;
  switch (p.spec.kind) {
    case 'release':
      return resolveRelease(p.spec.version, text, field, ctx);
    case 'git':
      return buildSource(p.source!, ctx);
    case 'path': {
      const path = resolvePath(ctx.cwd, p.spec.path);
      const run = ctx.run ? { run: ctx.run } : {};
      const v = await preflightBuild(path, { field, spec: text, logger: ctx.logger, ...run });
      return {
        spec: text,
        path,
        sha256: await sha256File(path),
        version: v.version,
        revision: v.revision,
        origin: { kind: 'path', path },
      };
    }
  }
}

/** Several spec failures as one error: the problems joined when all are bad input, else exit 3 with each message. */
export function combineErrors(all: readonly HarnessError[]): HarnessError {
  // Note: specs that name the same build share one resolution, and so one error: it is told once
  const errors = [...new Set(all)];
  if (errors.length === 1) return errors[0]!;
  if (errors.every((e) => e instanceof ConfigError)) {
    return new ConfigError(dedupe(errors.flatMap((e) => (e as ConfigError).problems)));
  }
  const code = errors.some((e) => e.exitCode === EXIT.INFRA) ? EXIT.INFRA : EXIT.USAGE;
  const each = errors.map((e) => `  - ${e.message}`).join('\n');
  return new HarnessError(`${errors.length} builds could not be resolved:\n${each}`, { exitCode: code });
}

/**
 * What is wrong with `p` as a key file (a directory or a fifo would pass the plan and fail at the signature check;
 * a file that is no OpenPGP public key, a kubeconfig given by mistake, would fail only after the download), or
 * undefined. Read through the one guarded read: a FIFO or a device is told without waiting on it, in every slot's words.
 */
async function keyFileState(p: string): Promise<{ message: string; fix?: string } | undefined> {
  const r = await readInputFile(p, { head: KEY_HEAD });
  if (r.ok) {
    const kind = keyKind(r.bytes);
    return kind === undefined ? undefined : { message: kind };
  }
  if (r.code === 'ENOENT') return { message: 'no such file' };
  if (r.code === 'EISDIR') return { message: 'is a directory, not a key file' };
  // a FIFO, a socket or a device (notAFileText's words and fix), or what the open or read said
  return r.code === undefined ? { message: r.message, fix: r.fix } : { message: r.message };
}

/** How much of a key file is read to tell what it is: an armored key may follow a few lines of comment. */
const KEY_HEAD = 64 * 1024;

/**
 * Why the start of a key file is no OpenPGP public key (gpg --import would refuse it, or take a private key), or
 * undefined: an armored public-key block, or a binary public-key packet (tag 6, old format 0x98-0x9a or new 0xc6).
 */
function keyKind(head: Buffer): string | undefined {
  if (!head.length) return 'is empty, not an OpenPGP public key';
  if ([0x98, 0x99, 0x9a, 0xc6].includes(head[0]!)) return undefined;
  const text = head.toString('latin1');
  if (text.includes('-----BEGIN PGP PUBLIC KEY BLOCK-----')) return undefined;
  if (text.includes('-----BEGIN PGP PRIVATE KEY BLOCK-----'))
    return 'is an OpenPGP private key: give the public key (gpg --export --armor <key id>), never the private one';
  return 'is not an OpenPGP public key (no "-----BEGIN PGP PUBLIC KEY BLOCK-----", no binary key packet)';
}

function dedupe(ps: ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  return ps.filter((p) => {
    const k = JSON.stringify(p);
    return seen.has(k) ? false : (seen.add(k), true);
  });
}

/** Why `path` cannot be stat'ed (ENOENT: nothing there; ELOOP: a symlink loop; ...). */
function statCode(path: string): string {
  try {
    statSync(path);
    return 'ENOENT';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'ENOENT';
  }
}
