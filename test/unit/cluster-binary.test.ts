import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { inspectElf, inspectNomadBinary, checkNomadBinary, probeNomadVersion } from '../../lib/builds/binary.js';
import { runDoctor } from '../../lib/cli/doctor.js';
import { runCommand, type RunCommand } from '../../lib/exec/run.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { ConfigError } from '../../lib/errors.js';

const noCc = spawnSync('cc', ['--version']).status === 0 ? false : 'no C compiler (cc) to build the tiny test programs';

/** Compile a tiny real x86-64 ELF that prints `out` when its first argument is "version" (and sleeps `sleepS` first). */
function tinyElf(dir: string, name: string, out: string, sleepS = 0): string {
  const src = `${dir}/${name}.c`;
  const lit = JSON.stringify(out);
  writeFileSync(
    src,
    '#include <stdio.h>\n#include <string.h>\n#include <unistd.h>\n' +
      `int main(int c, char **v) { if (c > 1 && !strcmp(v[1], "version")) { sleep(${sleepS}); fputs(${lit}, stdout); } return 0; }\n`,
  );
  const r = spawnSync('cc', ['-O0', '-o', `${dir}/${name}`, src], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cc failed: ${r.stderr}`);
  return `${dir}/${name}`;
}

/** A minimal ELF header: class, data, osabi, e_type, e_machine. */
function elf({ cls = 2, data = 1, osabi = 0, type = 2, machine = 0x3e } = {}): Buffer {
  const b = Buffer.alloc(64);
  b.writeUInt32BE(0x7f454c46, 0);
  b[4] = cls;
  b[5] = data;
  b[6] = 1;
  b[7] = osabi;
  if (data === 1) {
    b.writeUInt16LE(type, 16);
    b.writeUInt16LE(machine, 18);
  } else {
    b.writeUInt16BE(type, 16);
    b.writeUInt16BE(machine, 18);
  }
  return b;
}

t.test('accepts ELF64 x86-64 executables (static and PIE)', async (t) => {
  t.match(inspectElf(elf()), { ok: true, arch: 'x86-64', os: 'linux' });
  t.match(inspectElf(elf({ type: 3, osabi: 3 })), { ok: true, arch: 'x86-64' });
});

t.test('rejects what is not a Linux x86-64 executable, saying what it is', async (t) => {
  t.match(inspectElf(elf({ machine: 0xb7 })), { ok: false, arch: 'arm64', reason: /an ELF for arm64, not x86-64/ });
  t.match(inspectElf(elf({ cls: 1, machine: 0x03 })), { ok: false, reason: /32-bit/ });
  t.match(inspectElf(elf({ type: 1 })), { ok: false, reason: /object file/ });
  t.match(inspectElf(elf({ osabi: 9 })), { ok: false, reason: /for freebsd/ });
  t.match(inspectElf(Buffer.from('cffaedfe07000001', 'hex')), {
    ok: false,
    arch: 'mach-o',
    os: 'macos',
    reason: /macOS Mach-O/,
  });
  t.match(inspectElf(Buffer.from('cafebabe00000002', 'hex')), { ok: false, arch: 'mach-o-universal' });
  t.match(inspectElf(Buffer.from('#!/bin/sh\necho nomad\n')), {
    ok: false,
    arch: 'script',
    reason: /a script \(#!\/bin\/sh\)/,
  });
  t.match(inspectElf(Buffer.from('PK\x03\x04rest', 'latin1')), { ok: false, arch: 'zip', reason: /unzip/ });
  t.match(inspectElf(Buffer.from('MZ\x90\x00', 'latin1')), { ok: false, os: 'windows' });
  t.match(inspectElf(Buffer.alloc(0)), { ok: false, reason: /empty/ });
  t.match(inspectElf(Buffer.from('hello world')), { ok: false, reason: /no ELF header/ });
});

t.test('a file that is nothing known is told by its size, never its bytes (Q239)', async (t) => {
  const shadow = 'root:$6$salt$hash:19000:0:99999:7:::\n';
  const dir = t.testdir({ shadow });
  const info = await inspectNomadBinary(`${dir}/shadow`);
  t.equal(info.reason, `${dir}/shadow: not an executable: no ELF header (a file of ${shadow.length} bytes)`);
  t.notMatch(info.reason, /726f6f74|root/, 'not its first bytes, in hex or as text');
  t.equal(inspectElf(Buffer.from('hello world')).reason, 'not an executable: no ELF header (a file of 11 bytes)');
});

t.test('checkNomadBinary reads the file and names it in the error', async (t) => {
  const dir = t.testdir({ 'nomad.sh': '#!/bin/bash\nexit 0\n' });
  t.match(await inspectNomadBinary(process.execPath), { ok: true, arch: 'x86-64' }, 'node itself is an x86-64 ELF');
  await t.rejects(checkNomadBinary(`${dir}/nomad.sh`), ConfigError);
  await t.rejects(checkNomadBinary(`${dir}/nomad.sh`), {
    message: new RegExp(`nomadBinary: ${dir}/nomad\\.sh: a script`),
  });
  t.match(await inspectNomadBinary(`${dir}/missing`), { ok: false, reason: /no such file/ });
  await writeFile(`${dir}/arm`, elf({ machine: 0xb7 }));
  await t.rejects(checkNomadBinary(`${dir}/arm`), { message: /arm: an ELF for arm64/ });
});

t.test('probeNomadVersion runs the build on the host and requires "Nomad v…"', { skip: noCc }, async (t) => {
  const dir = t.testdir({});
  const nomad = tinyElf(dir, 'nomad', 'Nomad v1.9.7\nBuildDate 2025-03-11T09:07:15Z\nRevision abc+CHANGES\n');
  const silent = tinyElf(dir, 'silent', '');
  const deadline = deadlineIn(10_000);
  t.same(await probeNomadVersion(nomad, { deadline }), { version: '1.9.7', revision: 'abc+CHANGES' });
  t.match(await probeNomadVersion(silent, { deadline, field: '--before' }), {
    field: '--before',
    value: silent,
    message: `${silent}: \`version\` printed nothing, not "Nomad v<version>" as a Nomad build does`,
  });
  t.match(await probeNomadVersion('/bin/true', { deadline }), {
    field: 'nomadBinary',
    message: /\/bin\/true: `version` printed nothing/,
  });
  const slow = tinyElf(dir, 'slow', 'Nomad v1.9.7\n', 5);
  const started = Date.now();
  // Note: the message names the time taken, which a loaded machine stretches past a second ("2.1s", not "…ms")
  t.match(await probeNomadVersion(slow, { deadline: deadlineIn(300) }), {
    message: /`version` did not finish within \d+(?:\.\d+)?m?s\b/,
  });
  t.ok(Date.now() - started < 4000, 'the deadline stops the probe');
});

t.test(
  'checkNomadBinary refuses /bin/true and a silent ELF with exit 2, accepts a real-shaped build',
  { skip: noCc },
  async (t) => {
    const dir = t.testdir({});
    const nomad = tinyElf(dir, 'nomad', 'Nomad v1.9.7\nBuildDate 2025-03-11T09:07:15Z\nRevision abc+CHANGES\n');
    const silent = tinyElf(dir, 'silent', '');
    t.match(await checkNomadBinary(nomad, '--nomad-binary'), {
      ok: true,
      arch: 'x86-64',
      version: '1.9.7',
      revision: 'abc+CHANGES',
    });
    await t.rejects(checkNomadBinary('/bin/true', '--nomad-binary'), {
      exitCode: 2,
      message: /--nomad-binary: \/bin\/true: `version` printed nothing/,
    });
    await t.rejects(checkNomadBinary(silent), ConfigError);
    const calls: string[] = [];
    const run: RunCommand = async (f, a, o) => (calls.push(f), runCommand(f, a, o));
    t.match(
      await checkNomadBinary('/bin/true', 'nomadBinary', { probe: false, run }),
      { ok: true, version: '' },
      'provisioning skips the probe',
    );
    t.same(calls, [], 'and runs nothing');
  },
);

t.test('doctor does not call /bin/true a Nomad build, and names a real one by version', { skip: noCc }, async (t) => {
  const dir = t.testdir({});
  const nomad = tinyElf(dir, 'nomad', 'Nomad v1.9.7\nBuildDate 2025-03-11T09:07:15Z\nRevision abc+CHANGES\n');
  // Note: only the build runs for real; the host tools doctor also asks are stood in (they are not what this test is about).
  const run: RunCommand = async (file, args, o) =>
    file === '/bin/true' || file === nomad
      ? runCommand(file, args, o)
      : { code: 1, stdout: '', stderr: 'absent\n', durationMs: 1 };
  const item = async (p: string) =>
    (await runDoctor({ deadline: deadlineIn(10_000), workDir: dir, nomadBinary: p, run })).find(
      (i) => i.name === 'nomad binary',
    );
  t.match(await item('/bin/true'), {
    ok: false,
    detail: /\/bin\/true: `version` printed nothing/,
    fix: /linux\/amd64 nomad/,
  });
  t.match(await item(nomad), {
    ok: true,
    detail: `${nomad}: Nomad v1.9.7 (revision abc+CHANGES), ELF64 x86-64 position-independent executable`,
  });
});
