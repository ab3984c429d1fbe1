// Is the given Nomad binary something the lab's x86-64 Linux VMs can run? Pure header inspection + a thin file check.
import { open, type FileHandle } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { ConfigError, formatMs, type ConfigProblem } from '../errors.js';
import { ANY_EXIT_CODE, runCommand, type RunCommand } from '../exec/run.js';
import { deadlineIn, type Deadline } from '../time/deadlines.js';
import { parseNomadVersion } from '../parse/go-tools.js';

interface ElfInfo {
  ok: boolean;
  /** x86-64, arm64, x86, arm, … or what the file is instead (mach-o, zip, script, …) */
  arch: string;
  /** linux, sysv, macos, windows, … ("unknown" when not decidable) */
  os: string;
  /** one line: why it is fine or what it is instead */
  reason: string;
}

/** How many leading bytes inspectElf needs. */
const HEADER_BYTES = 64;

const MACHINES: Record<number, string> = {
  62: 'x86-64',
  183: 'arm64',
  3: 'x86',
  40: 'arm',
  243: 'riscv',
  21: 'ppc64',
  22: 's390x',
};
const OSABI: Record<number, string> = { 0: 'sysv', 3: 'linux', 9: 'freebsd', 12: 'openbsd' };
const bad = (arch: string, os: string, reason: string): ElfInfo => ({ ok: false, arch, os, reason });

/**
 * Decide from the first bytes whether a file is an ELF64 little-endian x86-64 executable (what the VMs run). `size` is
 * the whole file's (default: the bytes given): what is told of a file that is nothing known, never its bytes (it may be
 * /etc/shadow given by mistake).
 */
export function inspectElf(buf: Uint8Array, size = buf.byteLength): ElfInfo {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const magic = b.length >= 4 ? b.readUInt32BE(0) : 0;
  if (b.length === 0) return bad('empty', 'unknown', 'the file is empty');
  if ([0xcffaedfe, 0xcefaedfe, 0xfeedfacf, 0xfeedface].includes(magic))
    return bad('mach-o', 'macos', 'a macOS Mach-O executable, not a Linux ELF: build with GOOS=linux GOARCH=amd64');
  if (magic === 0xcafebabe)
    return bad(
      'mach-o-universal',
      'macos',
      'a macOS universal (fat) binary, not a Linux ELF: build with GOOS=linux GOARCH=amd64',
    );
  if (b.subarray(0, 2).toString('latin1') === 'MZ')
    return bad('pe', 'windows', 'a Windows PE executable, not a Linux ELF: build with GOOS=linux GOARCH=amd64');
  if (b.subarray(0, 4).toString('latin1') === 'PK\x03\x04')
    return bad('zip', 'unknown', 'a zip archive (a release download?): unzip it and pass the nomad binary inside');
  if (b[0] === 0x1f && b[1] === 0x8b)
    return bad('gzip', 'unknown', 'a gzip archive: extract it and pass the nomad binary inside');
  if (b.subarray(0, 2).toString('latin1') === '#!') {
    const line = b.subarray(0, Math.min(b.length, 64)).toString('latin1').split('\n')[0];
    return bad('script', 'unknown', `a script (${line}), not a compiled binary`);
  }
  if (magic !== 0x7f454c46)
    return bad('unknown', 'unknown', `not an executable: no ELF header (a file of ${size} bytes)`);
  if (b.length < 20) return bad('elf-truncated', 'unknown', 'an ELF file cut short (header incomplete)');
  const os = OSABI[b[7]!] ?? `osabi-${b[7]}`;
  const little = b[5] === 1;
  const machineNo = little ? b.readUInt16LE(18) : b.readUInt16BE(18);
  const arch = MACHINES[machineNo] ?? `machine-0x${machineNo.toString(16)}`;
  const type = little ? b.readUInt16LE(16) : b.readUInt16BE(16);
  if (b[4] !== 2) return bad(arch, os, `a 32-bit ELF (${arch}); the VMs need a 64-bit x86-64 Linux binary`);
  if (!little) return bad(arch, os, `a big-endian ELF (${arch}); the VMs need x86-64`);
  if (machineNo !== 0x3e) return bad(arch, os, `an ELF for ${arch}, not x86-64: build with GOOS=linux GOARCH=amd64`);
  if (type !== 2 && type !== 3)
    return bad(
      arch,
      os,
      `an ELF ${type === 1 ? 'object file' : type === 4 ? 'core dump' : `of type ${type}`}, not an executable`,
    );
  if (os !== 'sysv' && os !== 'linux') return bad(arch, os, `an x86-64 ELF for ${os}, not Linux`);
  return {
    ok: true,
    arch,
    os: 'linux',
    reason: `ELF64 x86-64 ${type === 2 ? 'executable' : 'position-independent executable'}`,
  };
}

/** Read the header of `path` and inspect it; the result's reason names the file. */
export async function inspectNomadBinary(path: string): Promise<ElfInfo> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return bad(
      'missing',
      'unknown',
      `${path}: cannot open (${code === 'ENOENT' ? 'no such file' : (code ?? String(err))})`,
    );
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return bad('not-a-file', 'unknown', `${path}: not a regular file`);
    const buf = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEADER_BYTES, 0);
    const info = inspectElf(buf.subarray(0, bytesRead), st.size);
    return { ...info, reason: `${path}: ${info.reason}` };
  } finally {
    await fh.close();
  }
}

/** What to do about a file that is not a Nomad agent build. */
const BUILD_FIX = 'pass a Linux amd64 nomad binary (e.g. pkg/linux_amd64/nomad from `make pkg/linux_amd64/nomad`)';
/** How long `<build> version` may take on the host: a real agent answers in well under a second. */
export const VERSION_PROBE_MS = 15_000;

/** A Nomad build as proved on the host: its ELF header and what `<build> version` said. */
interface NomadBuildInfo extends ElfInfo {
  version: string;
  revision: string;
}

/**
 * Run `<path> version` on the host (bounded by `deadline`) and require "Nomad v…": proves the file is a Nomad agent
 * build, not just any x86-64 program (`/bin/true`). Returns version and revision, or the problem naming `field`.
 */
export async function probeNomadVersion(
  path: string,
  { deadline, field = 'nomadBinary', run = runCommand }: { deadline: Deadline; field?: string; run?: RunCommand },
): Promise<{ version: string; revision: string } | ConfigProblem> {
  const problem = (message: string): ConfigProblem => ({
    field,
    value: path,
    message: `${path}: ${message}`,
    fix: BUILD_FIX,
  });
  const started = performance.now();
  let out: { code: number; stdout: string; stderr: string };
  try {
    out = await run(path, ['version'], { deadline, allowedCodes: ANY_EXIT_CODE });
  } catch (err) {
    const e = err as { timedOut?: boolean; message?: string };
    if (e.timedOut) return problem(`\`version\` did not finish within ${formatMs(performance.now() - started)}`);
    return problem(`\`version\` could not run: ${(e.message ?? String(err)).split('\n')[0]}`);
  }
  const parsed = parseNomadVersion(out.stdout.trim() ? out.stdout : out.stderr);
  if ('error' in parsed) return problem(`${parsed.error}${out.code === 0 ? '' : ` (exit ${out.code})`}`);
  if (out.code !== 0) return problem(`\`version\` exited ${out.code} after printing Nomad v${parsed.version}`);
  return { version: parsed.version, revision: parsed.revision };
}

/**
 * Throw a ConfigError (exit 2, before any VM is created) unless `path` is a Linux x86-64 executable that answers
 * `version` as a Nomad agent does; returns the header facts plus version and revision.
 */
export async function checkNomadBinary(
  path: string,
  field = 'nomadBinary',
  {
    deadline = deadlineIn(VERSION_PROBE_MS),
    run,
    probe = true,
  }: { deadline?: Deadline; run?: RunCommand; probe?: boolean } = {},
): Promise<NomadBuildInfo> {
  const info = await inspectNomadBinary(path);
  if (!info.ok) throw new ConfigError([{ field, value: path, message: info.reason, fix: BUILD_FIX }]);
  // Note: provisioning passes probe: false; preflight already ran the build, and the VM runs `nomad version` itself.
  if (!probe) return { ...info, version: '', revision: '' };
  const probed = await probeNomadVersion(path, { deadline, field, ...(run ? { run } : {}) });
  if ('message' in probed) throw new ConfigError([probed]);
  return { ...info, ...probed };
}
