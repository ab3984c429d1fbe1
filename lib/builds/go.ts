// Go on this host: its version (before anything else happens), and tools built in a throwaway module.
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ANY_EXIT_CODE, runCommand, type RunCommand } from '../exec/run.js';
import { CommandError } from '../errors.js';
import type { Deadline } from '../time/deadlines.js';
import type { Logger } from '../log/events.js';
import { sha256Of } from './cache.js';
import { goAtLeast } from '../parse/go-tools.js';
import type { GoTool, Raise } from './source-profile.js';
import { compareVersions } from '../parse/versions.js';

export interface GoOptions {
  deadline: Deadline;
  /** added to the environment of every go command (GOTOOLCHAIN=local, PATH, …) */
  env: Record<string, string | undefined>;
  run?: RunCommand;
  logger?: Logger;
  /** every command's output is appended here (the build log) */
  log?: (text: string) => Promise<void>;
}

/** `go env GOVERSION` (go1.26.8), or undefined when there is no go on PATH. */
export async function goVersion(o: GoOptions): Promise<string | undefined> {
  try {
    const r = await (o.run ?? runCommand)('go', ['env', 'GOVERSION'], {
      deadline: o.deadline,
      env: o.env,
      allowedCodes: ANY_EXIT_CODE,
      killGroup: true,
    });
    return r.code === 0 ? r.stdout.trim() : undefined;
  } catch (err) {
    if (err instanceof CommandError && err.code === undefined) return undefined; // ENOENT: no go on PATH
    throw err;
  }
}

/** Run one go command in `cwd`, its output into the log; the result (any exit code) comes back. */
export async function go(args: string[], cwd: string, o: GoOptions & { onLine?: (line: string) => void }) {
  const onLine = o.onLine;
  const r = await (o.run ?? runCommand)('go', args, {
    deadline: o.deadline,
    cwd,
    env: o.env,
    allowedCodes: ANY_EXIT_CODE,
    killGroup: true,
    ...(o.logger ? { logger: o.logger } : {}),
    ...(onLine ? { onLine: (_s: string, l: string) => onLine(l) } : {}),
  });
  await o.log?.(`$ (cd ${cwd} && go ${args.join(' ')})\n${r.stdout}${r.stderr}[exit ${r.code}]\n\n`);
  return r;
}

/** A generator as built: the package and version the tree pins, and the versions of the modules its rule watches. */
export interface BuiltTool {
  bin: string;
  pkg: string;
  version: string;
  /** module -> version for each `raise` module in the tool's build (raised or its own), e.g. golang.org/x/tools */
  deps: Record<string, string>;
  /** the directory to put first on PATH */
  dir: string;
}

/**
 * Build `tool` once per Go version into `<toolsRoot>/<hash>/bin/<bin>` (a throwaway module: `go get` of the tree's pin,
 * local replacements, then each `raise` module raised to its floor only when this Go needs it and the tool's own
 * requirement is lower) and return it with what it was built from. A failure throws with go's last lines.
 */
export async function buildTool(tool: GoTool, toolsRoot: string, goVer: string, o: GoOptions): Promise<BuiltTool> {
  const dir = join(toolsRoot, sha256Of(JSON.stringify({ tool, goVer })).slice(0, 16));
  const bin = join(dir, 'bin');
  const infoFile = join(dir, 'tool.json');
  const built = (deps: Record<string, string>): BuiltTool => ({
    bin: tool.bin,
    pkg: tool.pkg,
    version: tool.version,
    deps,
    dir: bin,
  });
  if (
    await access(join(bin, tool.bin)).then(
      () => true,
      () => false,
    )
  ) {
    const info = await readFile(infoFile, 'utf8').then(
      (t) => JSON.parse(t) as { deps: Record<string, string> },
      () => undefined,
    );
    if (info) return built(info.deps);
  }
  const mod = join(dir, 'mod');
  await rm(dir, { recursive: true, force: true });
  await mkdir(mod, { recursive: true });
  const minor = /^go(\d+\.\d+)/.exec(goVer)?.[1] ?? '1.21';
  await writeFile(join(mod, 'go.mod'), `module local/toolbuild\n\ngo ${minor}\n`);
  const step = async (args: string[], allowFail = false) => {
    const r = await go(args, mod, o);
    if (r.code !== 0 && !allowFail) {
      await rm(dir, { recursive: true, force: true });
      const tail = (r.stderr || r.stdout).trim().split('\n').slice(-8).join('\n');
      throw new Error(`building ${tool.bin} ${tool.version} (go ${args.join(' ')}) failed:\n${tail}`);
    }
    return r;
  };
  const replaced = Object.keys(tool.replace ?? {});
  const own = replaced.find((m) => tool.pkg === m || tool.pkg.startsWith(`${m}/`));
  for (const [m, path] of Object.entries(tool.replace ?? {})) {
    await step(['mod', 'edit', `-replace=${m}=${path}`, `-require=${m}@${m === own ? tool.version : 'v0.0.0'}`]);
  }
  if (!own) await step(['get', `${tool.pkg}@${tool.version}`]);
  // Note: `go list -m` fails for a module outside the tool's build list: nothing to raise, nothing to record.
  const versionOf = async (m: string) => {
    const r = await step(['list', '-m', '-f', '{{.Version}}', m], true);
    return r.code === 0 && r.stdout.trim() ? r.stdout.trim() : undefined;
  };
  const raised: string[] = [];
  for (const raise of tool.raise ?? []) {
    if (needsRaise(await versionOf(raise.module), raise, goVer)) raised.push(`${raise.module}@${raise.atLeast}`);
  }
  // Note: the tool's package is named again so that go.sum gets the entries its imports need at the raised versions.
  if (raised.length) await step(['get', ...(own ? [] : [`${tool.pkg}@${tool.version}`]), ...raised]);
  await step(['build', '-o', join(bin, tool.bin), tool.pkg]);
  const deps: Record<string, string> = {};
  for (const raise of tool.raise ?? []) {
    const v = await versionOf(raise.module);
    if (v) deps[raise.module] = v;
  }
  await writeFile(infoFile, JSON.stringify({ pkg: tool.pkg, version: tool.version, goVer, deps }, null, 2) + '\n');
  return built(deps);
}

/** Does a tool whose build list has `have` of the module need it raised under Go `goVer`? Only when lower. */
export function needsRaise(have: string | undefined, raise: Raise, goVer: string): boolean {
  if (have === undefined || !goAtLeast(goVer, raise.fromGo)) return false;
  return compareVersions(have.replace(/^v/, ''), raise.atLeast.replace(/^v/, '')) < 0;
}

/** Go's settings of where modules come from and are cached, taken from the context's environment. */
const GO_PLACES = [
  'GOPROXY',
  'GONOPROXY',
  'GOPRIVATE',
  'GONOSUMDB',
  'GOSUMDB',
  'GOINSECURE',
  'GOMODCACHE',
  'GOCACHE',
  'GOPATH',
  'GOENV',
];

/** The environment of every go command: a reproducible linux/amd64 cgo build with the local toolchain only. */
export function goBuildEnv(env: Record<string, string | undefined> = process.env): Record<string, string | undefined> {
  // Note: the user's GOFLAGS (-mod=vendor, …) are not the recipe's; the profile sets its own for generate and build.
  // Where modules come from and where they are kept are the user's (a mirror, a private cache), from the context's env.
  const kept = Object.fromEntries(GO_PLACES.flatMap((k) => (env[k] !== undefined ? [[k, env[k]]] : [])));
  return {
    ...kept,
    PATH: env['PATH'] ?? process.env['PATH'],
    GOTOOLCHAIN: 'local',
    CGO_ENABLED: '1',
    GOOS: 'linux',
    GOARCH: 'amd64',
    GOWORK: 'off',
    GOFLAGS: '',
  };
}
