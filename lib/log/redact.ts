// The one redactor: known secrets and secret-shaped text become [REDACTED]. It is applied where files are written
// (lib/report/write.ts, for reports and evidence alike) and on the console stream (`redactingWriter`, wrapped around
// stdout and stderr once by the CLI); nothing else needs to remember it.

export const REDACTED = '[REDACTED]';

/** Secrets shorter than this are not replaced literally: too likely to hit ordinary text. */
const MIN_SECRET_LENGTH = 4;

// Note: value patterns stop at quotes and backslashes so redacting escaped JSON text keeps it well-formed.
const PATTERNS: readonly [RegExp, string][] = [
  // PEM private keys, including OpenSSH's ("-----BEGIN OPENSSH PRIVATE KEY-----") and encrypted ones.
  [/-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g, REDACTED],
  // A private key cut off before its END line (a log tail, a truncated error).
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*$/g, REDACTED],
  // X-Nomad-Token: <t>  |  "X-Nomad-Token": "<t>"  |  -H 'X-Nomad-Token: <t>'
  [/(X-Nomad-Token\\?["']?\s*[:=]\s*\\?["']?)[^\s"'\\,;]+/gi, `$1${REDACTED}`],
  // Authorization: Bearer <t> (any scheme)
  [/(Authorization\\?["']?\s*[:=]\s*\\?["']?(?:Bearer|Basic|Token)?\s*)[^\s"'\\,;]+/gi, `$1${REDACTED}`],
  // NOMAD_TOKEN=<t>, also the sibling tokens an agent environment carries.
  [/\b((?:NOMAD_TOKEN|VAULT_TOKEN|CONSUL_HTTP_TOKEN)\s*[=:]\s*\\?["']?)[^\s"'\\]+/g, `$1${REDACTED}`],
  // "SecretID": "<t>" in API JSON, raw or escaped inside another JSON string.
  [/(\\?"SecretID\\?"\s*:\s*\\?")[^"\\]*/g, `$1${REDACTED}`],
  // `nomad acl token` CLI output: "Secret ID    = <t>"
  [/(\bSecret ID\s*=\s*)\S+/g, `$1${REDACTED}`],
  // Credentials in a URL (http://user:password@host/, https://token@host/): a user name alone is often a token too.
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'\\]+@/gi, `$1${REDACTED}@`],
];

/** Replace only the known secrets (length >= 4, longest first) with [REDACTED]; no patterns, so it is safe on rendered JSON/XML. */
export function redactKnown(text: string, secrets: readonly string[]): string {
  let out = text;
  const known = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
  for (const s of known) out = out.split(s).join(REDACTED);
  return out;
}

/** Replace every known secret (length >= 4) and every secret-shaped fragment (tokens, private keys) with [REDACTED]. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = redactKnown(text, secrets);
  for (const [re, by] of PATTERNS) out = out.replace(re, by);
  return out;
}

/**
 * A console stream that redacts every chunk before it reaches `write`. The secrets are read at each write: a command
 * learns its ACL token only once its config is read, after the stream was made.
 */
export function redactingWriter(
  write: (text: string) => void,
  secrets: () => readonly string[],
): (text: string) => void {
  return (text) => write(redact(text, secrets()));
}

/** Object keys whose string values are secret whatever they look like. */
const SECRET_KEYS =
  /^(secretid|secret_id|token|acltoken|x-nomad-token|authorization|nomad_token|privatekey|private_key|password)$/i;

/** Redact every string (values and keys) in a JSON-able value; values under secret-named keys are replaced whole. */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string')
      return key !== undefined && SECRET_KEYS.test(key) && v !== '' ? REDACTED : redact(v, secrets);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k, secrets), walk(x, k)]));
    }
    return v;
  };
  return walk(value) as T;
}
