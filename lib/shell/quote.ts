// The one audited way to put values into a POSIX sh command line (remote commands over SSH are strings).
import { EXIT, HarnessError } from '../errors.js';

/** Characters that never need quoting in POSIX sh. `=` and `~` are left out on purpose (assignment, tilde expansion). */
const SAFE = /^[A-Za-z0-9_@%+,.:/-]+$/;

/** Quote one argument for POSIX sh: unquoted when safe, '' when empty, else single quotes with `'\''`; NUL is rejected (sh cannot carry it). */
export function quote(arg: string | number): string {
  const s = String(arg);
  if (s.includes('\0'))
    throw new HarnessError(`cannot pass a NUL byte to a shell command (argument ${JSON.stringify(s.slice(0, 40))})`, {
      exitCode: EXIT.INTERNAL,
    });
  if (s === '') return "''";
  if (SAFE.test(s)) return s;
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/** A trusted, already-built shell fragment that `sh` inserts as is (e.g. another `sh` result or `2>&1`). */
export interface RawShell {
  readonly raw: string;
}

/** Mark a fragment as trusted shell text; only for constants and strings built with `sh`/`quote`. */
export function raw(fragment: string): RawShell {
  return { raw: fragment };
}

/** Values `sh` accepts: strings and numbers are quoted, arrays become several quoted words, RawShell is inserted as is. */
type ShellValue = string | number | RawShell | readonly (string | number)[];

/** Tagged template that quotes every interpolated value: sh`cat ${path}` -> "cat '/a b'". */
export function sh(strings: TemplateStringsArray, ...values: ShellValue[]): string {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    if (Array.isArray(v)) out += v.map((x) => quote(x)).join(' ');
    else if (typeof v === 'object' && v !== null && 'raw' in v) out += (v as RawShell).raw;
    else out += quote(v as string | number);
    out += strings[i + 1] ?? '';
  });
  return out;
}
