// Loads user scenarios from a directory at run time: every *.ts file directly in it is imported (through the
// TypeScript loader the CLI runs under: tsx, see bin/reboot-harness.js) and its default export is checked.
// Every problem of every file is returned at once; nothing is half-loaded.
import { existsSync } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { notAFileKind, notAFileText, readInputFile } from '../input/read.js';
import { register } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ConfigProblem } from '../errors.js';
import type { CheckInfo } from '../model/check.js';
import type { Scenario } from '../run/scenario.js';
import { reconcileResults } from './checks.js';
import { checkIdProblems, duplicateNameProblems, scenarioShapeProblems } from './shape.js';
import { ExitWhileLoadingError, importBounded, SlowLoadError } from './bounded-import.js';

/** The package name a scenario imports the API from (package.json "exports" maps it too, for editors and tsc). */
const API_SPECIFIER = 'nomad-reboot-harness/scenario';
// The API module in the form this one runs as (.ts from the sources; .js when compiled, as the test tiers run): a
// scenario must share the harness's module instances, its error classes among them, or a deadline it hits is no
// DeadlineError to the harness.
const API_URL = new URL(import.meta.url.endsWith('.ts') ? './api.ts' : './api.js', import.meta.url).href;
/** Files that are scenarios: TypeScript or JavaScript modules; helpers go in subdirectories or start with "_". */
const SCENARIO_FILE = /^[^._][^/]*\.(ts|mts|js|mjs)$/;

interface LoadedScenarios {
  scenarios: Scenario[];
  problems: ConfigProblem[];
}

/** A user scenario: the file it came from, its checks held to what it declared. */
interface UserScenario extends Scenario {
  file: string;
}

interface LoadOptions {
  /** names already taken (the shipped scenarios) */
  reserved?: readonly string[];
  /** the shipped checks, whose ids a user check may not take */
  shippedChecks?: readonly CheckInfo[];
  /** the field the directory came from, for problems: --scenarios or scenarios_dir */
  field?: string;
}

/** Import every scenario file of `dir`; problems (unreadable dir, a file that does not load or is no scenario, a
 * name taken twice, a shipped check's id) are all collected, and no scenario is returned when there is any. */
export async function loadScenarios(
  dir: string,
  { reserved = [], shippedChecks = [], field = '--scenarios' }: LoadOptions = {},
): Promise<LoadedScenarios> {
  const abs = resolve(dir);
  const files = await scenarioFiles(abs);
  if (!Array.isArray(files)) return { scenarios: [], problems: [{ field, value: dir, ...files }] };
  const problems: ConfigProblem[] = [];
  const cjs = files.filter((f) => !/\.m(ts|js)$/.test(f));
  // Note: Node decides a file's module type from its real path: a symlinked folder follows the package.json of its target
  const type = cjs.length ? await packageType(await realpath(abs).catch(() => abs)) : 'module';
  // Note: a package.json that is a FIFO or a device is told, and nothing imported: Node's loader reads it too (Q250)
  if (typeof type !== 'string') return { scenarios: [], problems: [{ field, ...type }] };
  if (type !== 'module') {
    // Note: tsx compiles a .ts file as CommonJS unless the nearest package.json says "type": "module", and a CommonJS
    // file cannot import the (ESM) scenario API; say so instead of showing Node's require(esm) error.
    return {
      scenarios: [],
      problems: [
        {
          field,
          value: dir,
          message:
            `has ${cjs.join(', ')}, which would load as CommonJS (no package.json with "type": "module" in it or ` +
            'above)',
          fix: `add one: echo '{ "type": "module" }' > ${join(abs, 'package.json')} (or name the files *.mts)`,
        },
      ],
    };
  }
  registerApiSpecifier();
  const loaded: { file: string; scenario: Scenario }[] = [];
  const judgedNames: { file: string; scenario: Scenario }[] = [];
  for (const file of files) {
    const path = join(abs, file);
    let mod: { default?: unknown };
    try {
      mod = await importBounded(pathToFileURL(path).href);
    } catch (err) {
      problems.push({ field: path, value: firstLine(err), message: 'does not load', fix: loadFix(err) });
      continue;
    }
    const shape = scenarioShapeProblems(path, mod.default);
    if (shape.length) problems.push(...shape);
    else loaded.push({ file: path, scenario: mod.default as Scenario });
    const named = namedPart(mod.default);
    if (named) judgedNames.push({ file: path, scenario: named });
  }
  // Note: a file with another problem has its name and check ids judged too: a shipped scenario's name beside an empty
  // checks list was told only once the list was mended (Q364)
  problems.push(...duplicateNameProblems(judgedNames, reserved), ...checkIdProblems(judgedNames, shippedChecks));
  if (problems.length) return { scenarios: [], problems };
  return { scenarios: loaded.map(({ file, scenario }) => guarded(file, scenario)), problems: [] };
}

/**
 * The name and check ids of a default export, whatever else is wrong with it, for the name and id rules (each
 * check's index kept; an entry without a string id stands as one with none); undefined when it has no usable name.
 */
function namedPart(exported: unknown): Scenario | undefined {
  const s = exported as { name?: unknown; checks?: unknown } | null | undefined;
  if (typeof s !== 'object' || s === null || typeof s.name !== 'string' || s.name === '') return undefined;
  const checks = Array.isArray(s.checks)
    ? s.checks.map((c: unknown) => {
        const id = (c as { id?: unknown } | null)?.id;
        return { id: typeof id === 'string' ? id : undefined };
      })
    : [];
  return { name: s.name, checks } as unknown as Scenario;
}

/** The scenario files of `dir`, sorted, or the problem with the directory itself. */
async function scenarioFiles(dir: string): Promise<string[] | { message: string; fix: string }> {
  let why = 'does not exist';
  const st = await stat(dir).catch((err: NodeJS.ErrnoException) => {
    // a symlink loop or a folder it may not enter exists, and is told as every other input tells it
    if (err.code !== 'ENOENT') why = `cannot be read (${err.code ?? err.message})`;
    return undefined;
  });
  if (!st?.isDirectory()) {
    const message = st ? 'is not a directory' : why;
    return { message, fix: 'give the directory holding your *.ts scenario files' };
  }
  const entries = await readdir(dir, { withFileTypes: true });
  // Note: a scenario-named FIFO, socket or device is told (importing it would wait for ever), not passed over (Q251)
  for (const e of entries.filter(
    (x) => SCENARIO_FILE.test(x.name) && (x.isFIFO() || x.isSocket() || x.isCharacterDevice() || x.isBlockDevice()),
  )) {
    const what = await notAFileKind(await stat(join(dir, e.name)));
    if (what) return { ...notAFileText(what), message: `has ${e.name}, which ${notAFileText(what).message}` };
  }
  const names = entries.filter((e) => e.isFile() && SCENARIO_FILE.test(e.name));
  const files = names
    .map((e) => e.name)
    .filter((n) => !n.endsWith('.d.ts'))
    .sort();
  if (!files.length) return { message: 'holds no scenario file (*.ts)', fix: 'put one scenario per .ts file in it' };
  return files;
}

/**
 * "type" of the nearest package.json at or above `dir` ("commonjs" when there is none, as Node decides), or the problem
 * with a package.json that is no file (read through the guarded reader: a FIFO there held `list` past SIGTERM).
 */
async function packageType(dir: string): Promise<string | { value: string; message: string; fix: string }> {
  const file = nearestPackageJson(dir);
  const read = file ? await readInputFile(file) : undefined;
  if (read && !read.ok && !read.code) return { value: file!, message: read.message, fix: read.fix };
  const text = read?.ok ? read.bytes.toString('utf8') : undefined;
  if (!text) return 'commonjs';
  try {
    return String((JSON.parse(text) as { type?: unknown }).type ?? 'commonjs');
  } catch {
    return 'commonjs';
  }
}

/** The package.json that decides how the scenario files of `dir` load (the nearest one up), or undefined. */
export function nearestPackageJson(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return join(d, 'package.json');
    if (dirname(d) === d) return undefined;
  }
}

/** The loaded scenario with its results reconciled with its declared checks (see reconcileResults). */
function guarded(file: string, s: Scenario): UserScenario {
  const { validate, preflight } = s;
  return {
    ...s,
    file,
    run: async (ctx, env) => reconcileResults(s.checks, await s.run(ctx, env)),
    // Note: a hook of the user's that throws is a problem of the input naming its file (exit 2), not a harness bug.
    ...(validate
      ? {
          validate: (config) => {
            try {
              return validate.call(s, config);
            } catch (err) {
              return [hookThrew(file, 'validate', err)];
            }
          },
        }
      : {}),
    ...(preflight
      ? {
          preflight: async (config, tools) => {
            try {
              return await preflight.call(s, config, tools);
            } catch (err) {
              return [hookThrew(file, 'preflight', err)];
            }
          },
        }
      : {}),
  };
}

function hookThrew(file: string, hook: string, err: unknown): ConfigProblem {
  return {
    field: file,
    value: firstLine(err),
    message: `${hook}() threw`,
    fix: `fix ${hook}() in the file: it returns the problems it finds (an empty list when there are none), it does not throw`,
  };
}

// Note: a process-wide hook, registered once; register() is what Node offers for bare specifiers outside a package.
let registered = false;
function registerApiSpecifier(): void {
  if (registered) return;
  registered = true;
  register(new URL('./resolve-hook.mjs', import.meta.url), { data: { targets: { [API_SPECIFIER]: API_URL } } });
}

/** The line of a load error that says what is wrong (esbuild puts it after "Transform failed with 1 error:"). */
function firstLine(err: unknown): string {
  const lines = (err instanceof Error ? err.message : String(err))
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const head = lines[0] ?? 'unknown error';
  return (head.endsWith(':') && lines[1] ? `${head} ${lines[1]}` : head).slice(0, 300);
}

function loadFix(err: unknown): string {
  if (err instanceof ExitWhileLoadingError) return 'do not end the process from a scenario file: export the scenario';
  if (err instanceof SlowLoadError) {
    return "let the file's top-level code finish: declare the scenario, and await in its run() instead";
  }
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ERR_MODULE_NOT_FOUND') {
    return `fix the import (the API is '${API_SPECIFIER}'; other modules by relative path)`;
  }
  return 'fix the error in the file (run it through `npx tsc --noEmit` to see every error)';
}
