// Pure helpers to make command output short enough to put in an error. Secrets are redacted where text leaves the
// process (lib/log/redact.ts), not here.

/** Default number of stderr lines kept in an error message. */
const TAIL_LINES = 20;

/** The last `n` non-empty lines of `text` (stderr tail for errors), trimmed of trailing whitespace. */
export function tailLines(text: string, n: number = TAIL_LINES): string {
  const lines = text
    .split(/\r?\n|\r/)
    .map((l) => l.trimEnd())
    .filter((l) => l !== '');
  return lines.slice(-n).join('\n');
}
