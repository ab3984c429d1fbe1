// Go on this host: its version (before anything else happens), and tools built in a throwaway module.
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ANY_EXIT_CODE, runCommand, type RunCommand } from '../exec/run.js';
import { CommandError } from '../errors.js';
import type { Deadline } from '../run/deadline.js';
import type { Logger } from '../log/events.js';
import { sha256Of } from './cache.js';
import type { GoTool } from './source-profile.js';

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
    const r = await (o.run ?? runCommand)('go', ['env', 'GOVERSION'],
      { deadline: o.deadline, env: o.env, allowedCodes: ANY_EXIT_CODE });
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
    deadline: o.deadline, cwd, env: o.env, allowedCodes: ANY_EXIT_CODE,
    ...(o.logger ? { logger: o.logger } : {}), ...(onLine ? { onLine: (_s: string, l: string) => onLine(l) } : {}) });
  await o.log?.(`$ (cd ${cwd} && go ${args.join(' ')})\n${r.stdout}${r.stderr}[exit ${r.code}]\n\n`);
  return r;
}

/**
 * Build `tool` once per Go version into `<toolsRoot>/<hash>/<bin>` (a throwaway module: `go get` of its pins, local
 * replacements) and return that directory for PATH. A failure throws with go's last lines.
 */
export async function buildTool(tool: GoTool, toolsRoot: string, goVer: string, o: GoOptions): Promise<string> {
  const dir = join(toolsRoot, sha256Of(JSON.stringify({ tool, goVer })).slice(0, 16));
  const bin = join(dir, 'bin');
  if (await access(join(bin, tool.bin)).then(() => true, () => false)) return bin;
  const mod = join(dir, 'mod');
  await rm(dir, { recursive: true, force: true });
  await mkdir(mod, { recursive: true });
  const minor = /^go(\d+\.\d+)/.exec(goVer)?.[1] ?? '1.21';
  await writeFile(join(mod, 'go.mod'), `module local/toolbuild\n\ngo ${minor}\n`);
  const steps: string[][] = [];
  for (const [m, path] of Object.entries(tool.replace ?? {})) {
    steps.push(['mod', 'edit', `-replace=${m}=${path}`, `-require=${m}@v0.0.0`]);
  }
  if (tool.get.length) steps.push(['get', ...tool.get]);
  steps.push(['build', '-o', join(bin, tool.bin), tool.pkg]);
  for (const args of steps) {
    const r = await go(args, mod, o);
    if (r.code !== 0) {
      await rm(dir, { recursive: true, force: true });
      const tail = (r.stderr || r.stdout).trim().split('\n').slice(-8).join('\n');
      throw new Error(`building ${tool.bin} (go ${args.join(' ')}) failed:\n${tail}`);
    }
  }
  return bin;
}

/** The environment of every go command: a reproducible linux/amd64 cgo build with the local toolchain only. */
export function goBuildEnv(env: Record<string, string | undefined> = process.env): Record<string, string | undefined> {
  // Note: the user's GOFLAGS (-mod=vendor, …) are not the recipe's; the profile sets its own for generate and build.
  return { PATH: env['PATH'] ?? process.env['PATH'], GOTOOLCHAIN: 'local', CGO_ENABLED: '1', GOOS: 'linux',
    GOARCH: 'amd64', GOWORK: 'off', GOFLAGS: '' };
}
