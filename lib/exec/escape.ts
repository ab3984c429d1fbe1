// Pure helpers to make command lines and output safe and short enough to log or put in an error.

/** Marker that replaces a secret in logged text. */
export const REDACTED = '***';

/** Replace every occurrence of each secret (ACL token, key path, ...) in `text`; empty secrets are ignored. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join(REDACTED);
  return out;
}

/** Default number of stderr lines kept in an error message. */
export const TAIL_LINES = 20;

/** The last `n` non-empty lines of `text` (stderr tail for errors), trimmed of trailing whitespace. */
export function tailLines(text: string, n: number = TAIL_LINES): string {
  const lines = text
    .split(/\r?\n|\r/)
    .map((l) => l.trimEnd())
    .filter((l) => l !== '');
  return lines.slice(-n).join('\n');
}
