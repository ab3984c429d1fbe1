import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { inspectElf, inspectNomadBinary, checkNomadBinary } from '../../lib/cluster/binary.js';
import { ConfigError } from '../../lib/errors.js';

/** A minimal ELF header: class, data, osabi, e_type, e_machine. */
function elf({ cls = 2, data = 1, osabi = 0, type = 2, machine = 0x3e } = {}): Buffer {
  const b = Buffer.alloc(64);
  b.writeUInt32BE(0x7f454c46, 0);
  b[4] = cls; b[5] = data; b[6] = 1; b[7] = osabi;
  if (data === 1) { b.writeUInt16LE(type, 16); b.writeUInt16LE(machine, 18); } else { b.writeUInt16BE(type, 16); b.writeUInt16BE(machine, 18); }
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
  t.match(inspectElf(Buffer.from('cffaedfe07000001', 'hex')), { ok: false, arch: 'mach-o', os: 'macos', reason: /macOS Mach-O/ });
  t.match(inspectElf(Buffer.from('cafebabe00000002', 'hex')), { ok: false, arch: 'mach-o-universal' });
  t.match(inspectElf(Buffer.from('#!/bin/sh\necho nomad\n')), { ok: false, arch: 'script', reason: /a script \(#!\/bin\/sh\)/ });
  t.match(inspectElf(Buffer.from('PK\x03\x04rest', 'latin1')), { ok: false, arch: 'zip', reason: /unzip/ });
  t.match(inspectElf(Buffer.from('MZ\x90\x00', 'latin1')), { ok: false, os: 'windows' });
  t.match(inspectElf(Buffer.alloc(0)), { ok: false, reason: /empty/ });
  t.match(inspectElf(Buffer.from('hello world')), { ok: false, reason: /no ELF header/ });
});

t.test('checkNomadBinary reads the file and names it in the error', async (t) => {
  const dir = t.testdir({ 'nomad.sh': '#!/bin/bash\nexit 0\n' });
  t.match(await inspectNomadBinary(process.execPath), { ok: true, arch: 'x86-64' }, 'node itself is an x86-64 ELF');
  await t.rejects(checkNomadBinary(`${dir}/nomad.sh`), ConfigError);
  await t.rejects(checkNomadBinary(`${dir}/nomad.sh`), { message: new RegExp(`nomadBinary: ${dir}/nomad\\.sh: a script`) });
  t.match(await inspectNomadBinary(`${dir}/missing`), { ok: false, reason: /no such file/ });
  await writeFile(`${dir}/arm`, elf({ machine: 0xb7 }));
  await t.rejects(checkNomadBinary(`${dir}/arm`), { message: /arm: an ELF for arm64/ });
});
