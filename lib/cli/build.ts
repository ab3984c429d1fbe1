// `reboot-harness build <spec>... [--json]`: resolve builds (download and verify, or build from source), no scenario.
import { homedir } from 'node:os';
import { ConfigError, type ConfigProblem, type ExitCode, EXIT } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import { consoleLogger } from '../log/format.js';
import { watchSignals } from '../run/signals.js';
import { interruptNow } from '../session/interrupt-exit.js';
import { buildContext } from '../builds/context.js';
import { describeGenerator, describeOrigin, buildProperties, recipeOf } from '../builds/provenance.js';
import { combineErrors, resolvePlanned, type SpecInput, type SpecOutcome } from '../builds/resolve.js';
import { planSpecs } from '../session/builds.js';
import type { BuildContext } from '../builds/context.js';
import { parseBuildSpec } from '../builds/spec.js';
import { checkNomadBinary } from '../builds/binary.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ParsedArgs } from './command.js';
import type { CliDeps } from './deps.js';
import type { Logger } from '../log/events.js';
import { notAFileProblems } from './paths.js';

/** Schema id of `build --json` output. */
export const BUILD_JSON_SCHEMA = 'nomad-reboot-harness/builds@1';

/** Resolve every spec; print path, sha256, version, revision and origin of each; exit 0, or 2/3 naming each failure. */
export async function buildCommand(args: ParsedArgs, config: HarnessConfig, deps: CliDeps): Promise<ExitCode> {
  const json = config.output.json;
  const color = deps.isTTY && !deps.env['NO_COLOR'] && !deps.env['CI'];
  // Note: progress goes to stderr even with --json (a source build takes minutes); --quiet silences it.
  const { verbose, quiet } = config.output;
  const logger = consoleLogger(deps.err, { verbose, quiet, color });
  // Note: a build makes no VM: the run's line ("VMs may then be left behind: run destroy") would send the reader astray
  const onFirst = (sig: NodeJS.Signals) =>
    deps.err(`\n${sig} received: stopping the build (press Ctrl-C again to exit at once)\n`);
  const watcher = watchSignals({
    onFirst,
    onSecond: interruptNow,
    ...(deps.signalSource ? { proc: deps.signalSource } : {}),
  });
  try {
    const deadline = { at: Number.POSITIVE_INFINITY, signal: watcher.signal };
    const ctx = contextFor(config, deps, logger, deadline);
    const inputs = specInputs(args.positionals);
    const plan = await planSpecs(inputs, ctx);
    if ('problems' in plan) throw new ConfigError(await withPathProblems(plan.problems, inputs, ctx));
    const outcomes = await resolvePlanned(plan.planned, ctx);
    // Note: a go or git command killed by the signal fails like a broken build; the interrupt is what happened
    if (watcher.signal.aborted) throw watcher.signal.reason;
    deps.out(json ? renderJson(outcomes) : renderText(outcomes));
    const errors = outcomes.flatMap((o) => ('error' in o ? [o.error] : []));
    if (!errors.length) return EXIT.OK;
    throw combineErrors(errors);
  } catch (err) {
    throw watcher.signal.aborted ? watcher.signal.reason : err;
  } finally {
    watcher.dispose();
  }
}

/**
 * Every problem of the specs found without resolving anything (no download, no compile), for telling them with the
 * rest of the input: none at all, `build spec: is required`; otherwise what planning the specs finds, and then the
 * specs that name a file that is no Nomad build.
 */
export async function buildSpecProblems(
  specs: readonly string[],
  config: HarnessConfig,
  deps: Pick<CliDeps, 'env' | 'cwd'>,
): Promise<ConfigProblem[]> {
  if (!specs.length)
    return [
      {
        field: 'build spec',
        value: undefined,
        message: 'is required',
        fix: 'give one or more: a release version (1.9.7, 1.9.7+ent, latest), git:<dir>[@<ref>], or a path',
      },
    ];
  const ctx = contextFor(config, deps, () => {});
  const inputs = specInputs(specs);
  // Note: a FIFO named as a build would hold its check (the ELF header, the hash) for ever: told, and not read
  const pipes = await notAFileProblems(
    inputs.map((i) => ({ field: i.field, value: i.text })),
    deps.cwd,
  );
  const plan = await planSpecs(inputs, ctx);
  const readable = inputs.filter((i) => !pipes.some((p) => p.field === i.field));
  const rest = 'problems' in plan ? await withPathProblems(plan.problems, readable, ctx) : [];
  return [...pipes, ...rest];
}

const specInputs = (specs: readonly string[]): SpecInput[] =>
  specs.map((text, i) => ({ text, field: `build spec ${i + 1}` }));

function contextFor(
  config: HarnessConfig,
  deps: Pick<CliDeps, 'env' | 'cwd'>,
  logger: Logger,
  deadline?: BuildContext['deadline'],
): BuildContext {
  const home = deps.env['HOME'] || homedir();
  return buildContext({
    builds: config.builds,
    env: deps.env,
    cwd: deps.cwd,
    home,
    logger,
    ...(deadline ? { deadline } : {}),
  });
}

/** The planner's problems and those of the specs naming a file, in the order of the specs. */
async function withPathProblems(
  planned: readonly ConfigProblem[],
  inputs: readonly SpecInput[],
  ctx: BuildContext,
): Promise<ConfigProblem[]> {
  const all = [...planned, ...(await pathSpecProblems(inputs, ctx))];
  const at = (p: ConfigProblem) => inputs.findIndex((i) => i.field === p.field);
  return all.sort((a, b) => at(a) - at(b));
}

/**
 * The problems of the specs that name a file, found without resolving anything else: the plan checks only that such
 * a file exists, so a bad one was told only after the other specs were fixed.
 */
async function pathSpecProblems(inputs: readonly SpecInput[], ctx: BuildContext): Promise<ConfigProblem[]> {
  const out: ConfigProblem[] = [];
  for (const { text, field } of inputs) {
    const parsed = parseBuildSpec(text, field, { exists: (p) => existsSync(resolve(ctx.cwd, p)), home: ctx.home });
    if (!('spec' in parsed) || parsed.spec.kind !== 'path') continue;
    const path = resolve(ctx.cwd, parsed.spec.path);
    if (!existsSync(path)) continue;
    try {
      await checkNomadBinary(path, field);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      out.push(...err.problems);
    }
  }
  return out;
}

/** Human output: one block per spec (a source build also names its tags, generators and Go). */
export function renderText(outcomes: readonly SpecOutcome[]): string {
  return outcomes
    .map((o) => {
      // Note: every line of the error, indented under the first: a message cut at its first newline loses its fix
      if ('error' in o)
        return `${o.input.text}\n  FAILED    ${o.error.message.trimEnd().split('\n').join('\n            ')}\n`;
      const b = o.build;
      const r = recipeOf(b.origin);
      const recipe = r
        ? [
            `  tags      ${r.tags.join(' ')}`,
            ...r.generators.map((g) => `  generator ${g.bin} ${describeGenerator(g)}`),
            `  go        ${r.go}`,
          ]
        : [];
      return [
        `${o.input.text}`,
        `  path      ${b.path}`,
        `  sha256    ${b.sha256}`,
        `  version   ${b.version}`,
        `  revision  ${b.revision || '(none printed)'}`,
        `  origin    ${describeOrigin(b.origin)}`,
        ...recipe,
        '',
      ].join('\n');
    })
    .join('\n');
}

/** Machine output: every spec with its build (and report properties) or its error. */
function renderJson(outcomes: readonly SpecOutcome[]): string {
  const builds = outcomes.map((o) =>
    'error' in o
      ? {
          spec: o.input.text,
          field: o.input.field,
          ok: false,
          exitCode: o.error.exitCode,
          error: o.error.message,
          ...(o.error.hint ? { hint: o.error.hint } : {}),
        }
      : { ...o.build, field: o.input.field, ok: true, properties: buildProperties(o.build) },
  );
  return `${JSON.stringify({ schema: BUILD_JSON_SCHEMA, builds }, null, 2)}\n`;
}
