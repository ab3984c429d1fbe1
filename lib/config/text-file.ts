// Pure: the text of a file a user gave (YAML: harness.yaml, a matrix, a fault schedule), which must be UTF-8; a file
// in another encoding is told with the one that it most likely is and the command that converts it.
import type { ConfigProblem } from '../errors.js';

/**
 * The line and the lead byte of the first sequence in `b` that is not UTF-8, for the message (TextDecoder decides
 * whether the file is UTF-8; this only points at where). Pure.
 */
function firstInvalidUtf8(b: Buffer): { line: number; byte: number } {
  let line = 1;
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    const n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (n < 0) return { line, byte: c };
    for (let k = 1; k <= n; k++) if (((b[i + k] ?? 0) & 0xc0) !== 0x80) return { line, byte: c };
    if (c === 0x0a) line++;
    i += n + 1;
  }
  return { line, byte: 0 };
}

/**
 * UTF-16 text (what Windows PowerShell's `>` and Notepad's "Unicode" write): a byte order mark, or most of the odd
 * (or even) bytes of its start zero (ASCII letters each followed or led by a zero byte). A file that only holds some
 * NULs (NUL-separated, as /proc/<pid>/environ) is not taken for it. Pure.
 */
export function isUtf16(b: Buffer): boolean {
  if ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff)) return true;
  const head = b.subarray(0, 64);
  const zeroAt = (parity: number) => head.filter((x, i) => i % 2 === parity && x === 0).length;
  const half = Math.floor(head.length / 2);
  return half >= 2 && Math.max(zeroAt(0), zeroAt(1)) >= 0.8 * half;
}

/** A file that is not UTF-8, with the encoding it most likely is and the command that converts it. Pure. */
function notUtf8Problem(b: Buffer, what: string, path: string): ConfigProblem {
  if (isUtf16(b))
    return {
      field: what,
      value: path,
      message:
        'is UTF-16 text, not UTF-8 (it holds zero bytes or opens with a UTF-16 byte order mark, as Windows PowerShell writes)',
      fix: `save it as UTF-8, e.g. iconv -f utf-16 -t utf-8 ${path}`,
    };
  const at = firstInvalidUtf8(b);
  return {
    field: what,
    value: path,
    message: `is not UTF-8 text (line ${at.line}: byte 0x${at.byte.toString(16)} is no UTF-8; a Latin-1 or Windows-1252 file?)`,
    fix: `save it as UTF-8, e.g. iconv -f latin1 -t utf-8 ${path}`,
  };
}

/**
 * `bytes` as UTF-8 text, or the problem of `field` (`path`: the file) when it is not: YAML is UTF-8, and a Latin-1
 * "café" would otherwise be read as "caf\uFFFD", a value no one wrote. Pure.
 */
export function decodeUtf8(
  bytes: Buffer,
  field: string,
  path: string,
): { ok: true; text: string } | { ok: false; problem: ConfigProblem } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, problem: notUtf8Problem(bytes, field, path) };
  }
  // UTF-16 of ASCII text has no byte that is invalid UTF-8, only NULs between the letters
  if (isUtf16(bytes)) return { ok: false, problem: notUtf8Problem(bytes, field, path) };
  return { ok: true, text };
}
