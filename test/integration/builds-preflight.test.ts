// Every resolved build is run as `<binary> version` on the host first: what is not a Nomad is refused with exit 2.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { preflightBuild } from '../../lib/builds/preflight.js';
import { ConfigError, EXIT } from '../../lib/errors.js';
import { rejection } from '../helpers/rejection.js';
import { mirrorPrereqs, testNomad } from '../helpers/release-mirror.js';

const skip = mirrorPrereqs();

/** Compile a C program from `body` (the inside of main). */
function cProgram(dir: string, name: string, body: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.c`), `#include <stdio.h>\n#include <unistd.h>\nint main(void) { ${body} }\n`);
  execFileSync('cc', ['-o', join(dir, name), join(dir, `${name}.c`)]);
  return join(dir, name);
}

t.test('preflight', { skip: skip ?? false }, async (t) => {
  const dir = t.testdir();
  const refused = async (path: string, timeoutMs?: number) => {
    const err = await rejection(
      preflightBuild(path, { field: '--nomad', spec: path, ...(timeoutMs ? { timeoutMs } : {}) }),
    );
    t.type(err, ConfigError, path);
    t.equal((err as ConfigError).exitCode, EXIT.USAGE);
    return (err as ConfigError).problems[0]!;
  };
  t.match(
    await preflightBuild(testNomad(dir, '1.9.3', 'd92bf10'), { field: '--nomad', spec: 'x' }),
    { version: '1.9.3', revision: 'd92bf10', buildDate: '2024-11-11T16:35:41Z' },
    'a build that answers like Nomad',
  );
  t.match(await refused('/bin/true'), { field: '--nomad', value: '/bin/true', message: /`version` printed nothing/ });
  t.match(await refused('/bin/false'), { message: /`version` exited 1/ });
  const other = cProgram(dir, 'consul', 'puts("Consul v1.20.0"); return 0;');
  t.match(await refused(other), { message: /printed "Consul v1\.20\.0", not "Nomad v<version>"/ });
  const hang = cProgram(dir, 'hang', 'for (;;) pause(); return 0;');
  const started = Date.now();
  t.match(await refused(hang, 1500), { message: /did not finish `version` within 1\.5 s/ });
  t.ok(Date.now() - started < 10_000, 'the deadline held');
  const script = join(dir, 'nomad.sh');
  writeFileSync(script, '#!/bin/sh\necho "Nomad v1.9.3"\n');
  chmodSync(script, 0o755);
  t.match(
    await refused(script),
    { message: /a script \(#!\/bin\/sh\), not a compiled binary/ },
    'the ELF check runs first',
  );
  t.match(await refused(join(dir, 'missing')), { message: /cannot open \(no such file\)/ });
});
