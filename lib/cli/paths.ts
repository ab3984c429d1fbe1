// Output paths checked before anything is created: a run's reports written into a file, or a work dir under
// /etc/passwd, would otherwise fail only at the end (its reports lost) or half-way through (its VMs left behind).
import { constants } from 'node:fs';
import { access, realpath, stat, statfs } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { ConfigProblem } from '../errors.js';
import { notAFileKind, notAFileText } from '../input/read.js';

/** What the path must be: a directory (made when missing), or a file (written, replaced when present). */
type PathKind = 'dir' | 'file';

export interface OutputPath {
  /** the flag or key named in a problem, e.g. "--reports-dir" */
  field: string;
  value: string;
  kind: PathKind;
}

/**
 * File systems that hold no files of ours, where Node's recursive mkdir loops for ever (proc answers ENOENT to every
 * mkdir): proc, sysfs, cgroup, cgroup2, devpts, debugfs, securityfs, tracefs, bpf, pstore, configfs, efivarfs.
 */
const PSEUDO_FS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x1cd1, 'devpts'],
  [0x64626720, 'debugfs'],
  [0x73636673, 'securityfs'],
  [0x74726163, 'tracefs'],
  [0xcafe4a11, 'bpf'],
  [0x6165676c, 'pstore'],
  [0x62656570, 'configfs'],
  [0xde5e81e4, 'efivarfs'],
]);

const errno = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? String(err);

/**
 * Why `p` (resolved from `cwd`) cannot be used as asked, or undefined when it can: what is there must be of the kind
 * asked, and the nearest folder that exists must be a folder this process may write on a real file system. Reads only.
 */
export async function pathProblem(p: OutputPath, cwd: string): Promise<ConfigProblem | undefined> {
  const what = p.kind === 'dir' ? 'a directory' : 'a file';
  const fix =
    p.kind === 'dir'
      ? 'give a directory, or a path where one can be made'
      : 'give a file path in a directory you can write';
  const says = (message: string): ConfigProblem => ({ field: p.field, value: p.value, message, fix });
  if (p.value.trim() === '') return says(`must name ${what} (an empty path would mean the working directory)`);
  const abs = resolve(cwd, p.value);
  // Note: a report is a file written, closed and read back (merge, attachments); a stream is none of that.
  if (p.kind === 'file' && /^\/(dev\/(stdout|stderr|fd\/\d+)|proc\/self\/fd\/\d+)$/.test(abs))
    return {
      ...says('is a stream, not a file: a report is written as a file'),
      fix: 'give a file path; to see the JSON summary on stdout use --json',
    };
  const here = await stat(abs).catch((err: unknown) => errno(err));
  if (typeof here !== 'string') {
    if (p.kind === 'dir' && !here.isDirectory()) return says('is a file, not a directory');
    if (p.kind === 'file' && here.isDirectory()) return says('is a directory, not a file');
  } else if (here !== 'ENOENT' && here !== 'ENOTDIR') return says(`cannot be looked at (${here})`);
  // The nearest existing folder on the way (the path itself when it is a directory that exists).
  let dir = typeof here !== 'string' && here.isDirectory() ? abs : dirname(abs);
  for (;;) {
    const st = await stat(dir).catch((err: unknown) => errno(err));
    if (typeof st !== 'string') {
      if (!st.isDirectory()) return says(`cannot be made: ${dir} is a file, not a directory`);
      break;
    }
    if (st !== 'ENOENT' && st !== 'ENOTDIR') return says(`cannot be made: ${dir} cannot be looked at (${st})`);
    if (dirname(dir) === dir) break;
    dir = dirname(dir);
  }
  const fs = await statfs(dir).then(
    (s) => PSEUDO_FS.get(s.type),
    () => undefined,
  );
  if (fs) return says(`cannot be made: ${dir} is on ${fs}, a kernel file system that holds no files`);
  const writable = await access(dir, constants.W_OK | constants.X_OK).then(() => undefined, errno);
  if (writable) return says(`cannot be written: ${dir} is not writable (${writable})`);
  return undefined;
}

/**
 * Where `p` (resolved from `cwd`) is written through symlinks: the real path of its nearest existing folder (or of the
 * path itself when it exists) with the rest appended. Two names of one place (`o/j.xml` and `link-to-o/j.xml`) would
 * otherwise pass a comparison of the names, and one report be written over the other. For a path the command
 * resolves before it uses it (a folder it joins names to, an input it reads): `..` is taken from the names.
 */
export async function canonicalPath(p: string, cwd: string): Promise<string> {
  const abs = resolve(cwd, p);
  const rest: string[] = [];
  for (let at = abs; ; at = dirname(at)) {
    const real = await realpath(at).catch(() => undefined);
    if (real !== undefined) return rest.length ? join(real, ...rest.reverse()) : real;
    if (dirname(at) === at) return abs;
    rest.push(basename(at));
  }
}

/**
 * canonicalPath for a file written by the name as given (--junit, --report-json): walked one name at a time, as the
 * kernel does, so `link/..` is the folder above the link's target, not the folder the link is in (Q180: the names
 * resolved first gave another place, and the JUnit report was written over by the JSON summary without a word).
 */
async function writtenPath(p: string, cwd: string): Promise<string> {
  let at = isAbsolute(p) ? '/' : ((await realpath(cwd).catch(() => undefined)) ?? resolve(cwd));
  const names = p.split('/').filter((n) => n !== '' && n !== '.');
  for (const [i, name] of names.entries()) {
    if (name === '..') {
      at = dirname(at);
      continue;
    }
    const real = await realpath(join(at, name)).catch(() => undefined);
    // the rest does not exist yet: made as named
    if (real === undefined) return resolve(at, ...names.slice(i));
    at = real;
  }
  return at;
}

/**
 * Output paths that collide: a file given twice (one report would overwrite the other), or a file where another
 * flag needs a directory (the path itself, or a folder above it). Pure: compares the paths as `real` maps them (the
 * place each is written to through symlinks), else as resolved.
 */
function collisionProblems(
  paths: readonly OutputPath[],
  cwd: string,
  real: ReadonlyMap<string, string> = new Map(),
): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  const seen = new Set<string>();
  const at = (v: string) => real.get(v) ?? resolve(cwd, v);
  for (const [i, a] of paths.entries())
    for (const b of paths.slice(i + 1)) {
      if (a.field === b.field) continue;
      if (a.kind === 'dir' && b.kind === 'dir') {
        out.push(...sameFolderProblems(a, b, at));
        continue;
      }
      const [file, other] = a.kind === 'file' ? [a, b] : [b, a];
      const f = at(file.value);
      const o = at(other.value);
      const same = f === o || (real.get(`inode\u0000${file.value}`) ?? f) === real.get(`inode\u0000${other.value}`);
      if (!same && !(other.kind === 'dir' && o.startsWith(`${f}/`))) continue;
      const key = `${file.field}\u0000${other.field}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({
        field: `${file.field} / ${other.field}`,
        value: same ? file.value : [file.value, other.value],
        message:
          other.kind === 'file'
            ? 'name the same file: one report would overwrite the other'
            : same
              ? 'name the same path, as a file and as a directory'
              : `${file.field} names a file where ${other.field} needs a directory`,
        fix: `give ${file.field} and ${other.field} different paths (e.g. the JUnit file beside the reports dir, not in its place)`,
      });
    }
  return out;
}

/**
 * The reports folder and a lab's work dir as one folder (Q209): a run's lab folder `<work-dir>/<run-id>` was its
 * reports folder `<reports-dir>/<run-id>`, and the lab's teardown, or the `destroy <run-id>` the run printed, removed
 * it with the run's reports in it.
 */
function sameFolderProblems(a: OutputPath, b: OutputPath, at: (v: string) => string): ConfigProblem[] {
  if (at(a.value) !== at(b.value)) return [];
  return [
    {
      field: `${a.field} / ${b.field}`,
      value: a.value === b.value ? a.value : [a.value, b.value],
      message:
        "name the same folder: a run's lab folder (<folder>/<run id>) would be its reports folder, and the lab's teardown or `reboot-harness destroy` removes it, the reports with it",
      fix: `give ${a.field} and ${b.field} different folders (e.g. --reports-dir reports, the work dir elsewhere)`,
    },
  ];
}

/** A file the command reads: harness.yaml, a job, a scenario file, a build given as a path. */
export interface InputPath {
  /** what names it, e.g. "--config" */
  field: string;
  value: string;
  /** the folder a relative value is read from (default: the command's working directory) */
  from?: string;
}

/**
 * A report file that is one of the files the command reads: writing it would replace harness.yaml, the job, a
 * scenario's source or the Nomad build with a report, without a word (a tab completion is enough to give one). Pure:
 * `real` maps a resolved path to the file it reaches through symlinks (a report is written through a link to it).
 */
function overwrittenInputProblems(
  paths: readonly OutputPath[],
  inputs: readonly InputPath[],
  cwd: string,
  real: ReadonlyMap<string, string> = new Map(),
) {
  const out: ConfigProblem[] = [];
  const at = (from: string, v: string) => real.get(`${from}\u0000${v}`) ?? resolve(from, v);
  for (const p of paths.filter((x) => x.kind === 'file')) {
    const target = at(cwd, p.value);
    const hit = inputs.find((i) => at(i.from ?? cwd, i.value) === target);
    if (!hit) continue;
    out.push({
      field: p.field,
      value: p.value,
      message: `is a file this command reads (${hit.field}): the report would be written over it`,
      fix: `give ${p.field} a path of its own (e.g. reports/${p.field.includes('junit') ? 'junit.xml' : 'summary.json'})`,
    });
  }
  return out;
}

/**
 * Every problem with these paths at once (each path checked once), collisions between them included, and a report
 * that would be written over one of the `inputs`.
 */
export async function pathProblems(
  paths: readonly OutputPath[],
  cwd: string,
  inputs: readonly InputPath[] = [],
): Promise<ConfigProblem[]> {
  // Note: each path as the file it reaches: a report named by a symlink to harness.yaml (or the build named by one) is
  // written over that file all the same, ...
  const named = [
    ...paths.filter((p) => p.kind === 'file').map((p) => [cwd, p.value, writtenPath] as const),
    ...inputs.map((i) => [i.from ?? cwd, i.value, canonicalPath] as const),
  ];
  // ... and a hard link to it (another name of the same inode) too: an existing file is known by its device and inode
  const fileKey = async (p: string) => {
    const st = await stat(p).catch(() => undefined);
    return st?.isFile() ? `inode:${st.dev}:${st.ino}` : p;
  };
  const real = new Map(
    await Promise.all(
      named.map(async ([from, v, place]) => [`${from}\u0000${v}`, await fileKey(await place(v, from))] as const),
    ),
  );
  // the report paths where they are written (a hard link of one report file to another is the same file, too)
  const places = (
    await Promise.all(
      paths.map(async (p) => {
        const place = await (p.kind === 'file' ? writtenPath : canonicalPath)(p.value, cwd);
        const key = await fileKey(place);
        return [[p.value, place] as const, ...(key === place ? [] : [[`inode\u0000${p.value}`, key] as const])];
      }),
    )
  ).flat();
  const out: ConfigProblem[] = [
    ...collisionProblems(paths, cwd, new Map(places)),
    ...overwrittenInputProblems(paths, inputs, cwd, real),
  ];
  const seen = new Set<string>();
  for (const p of paths) {
    const key = `${p.field}\u0000${p.value}\u0000${p.kind}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const problem = await pathProblem(p, cwd);
    if (problem) out.push(problem);
  }
  return out;
}

/**
 * Why the input at `p` cannot be read as a file, or undefined: a named pipe (FIFO), a socket, or a device other than
 * /dev/null. Reading a FIFO (or a terminal) waits for a writer for ever, past Ctrl-C (the read blocks a thread Node
 * waits for at exit), and a pipe can be read once where the harness reads its inputs again (the run after the check,
 * repro.sh); /dev/zero or /dev/urandom never ends: read whole, it took every byte of memory (16 GB, then
 * std::bad_alloc). A missing path or a directory is left to the reader, which names it; /dev/null reads as empty.
 * Reads only (stat); the words are lib/input/read.ts's, which a read through readInputFile says too.
 */
export async function notAFileProblem(i: InputPath, cwd: string): Promise<ConfigProblem | undefined> {
  const st = await stat(resolve(i.from ?? cwd, i.value)).catch(() => undefined);
  const what = st && (await notAFileKind(st));
  return what ? { field: i.field, value: i.value, ...notAFileText(what) } : undefined;
}

/** notAFileProblem of each input, once per path. */
export async function notAFileProblems(inputs: readonly InputPath[], cwd: string): Promise<ConfigProblem[]> {
  const seen = new Set<string>();
  const out: ConfigProblem[] = [];
  for (const i of inputs) {
    const abs = resolve(i.from ?? cwd, i.value);
    if (seen.has(abs)) continue;
    seen.add(abs);
    const p = await notAFileProblem(i, cwd);
    if (p) out.push(p);
  }
  return out;
}
