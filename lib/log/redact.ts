// The one redactor: known secrets and secret-shaped text become [REDACTED]. It is applied where files are written
// (lib/report/write.ts, for reports and evidence alike) and on the console stream (`redactingWriter`, wrapped around
// stdout and stderr once by the CLI); nothing else needs to remember it.

export const REDACTED = '[REDACTED]';

/**
 * Secrets at least this long are replaced wherever they stand as a whole token; a shorter one (a word like "nomad" or
 * "boot" would hit the harness's own names: its schema ids, scenario names, flags, paths) only where it is a whole
 * value or word. A Nomad SecretID is a UUID (36 characters).
 */
const MIN_TOKEN_LENGTH = 16;

/** Characters that continue a token: a secret next to one of them is part of a longer word, not the secret. */
const WORD = 'A-Za-z0-9_\\-';

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A pattern matching every given secret where it stands alone: as a whole token for a long secret (not inside a
 * longer word, nor a dotted name); as a whole word set off by spaces, quotes, "=" or ":" for a short one.
 */
export function secretPattern(secrets: readonly string[]): RegExp | undefined {
  const known = [...new Set(secrets.filter((s) => s.length > 0).flatMap(writtenForms))].sort(
    (a, b) => b.length - a.length,
  );
  if (!known.length) return undefined;
  const long = known.filter((s) => s.length >= MIN_TOKEN_LENGTH).map(escapeRe);
  const short = known.filter((s) => s.length < MIN_TOKEN_LENGTH).map(escapeRe);
  const alts = [
    ...(long.length ? [`(?<![${WORD}.])(?:${long.join('|')})(?![${WORD}]|\\.[A-Za-z0-9])`] : []),
    // Note: a short one stands alone: between spaces, quotes, "=" or ":" and the end of a word; never next to "-", "/",
    // "_" or "." inside a name, so "nomad-reboot-harness", "--nomad" and ".../nomad" stay whole.
    ...(short.length ? [`(?<=^|[\\s"'=:>(,])(?:${short.join('|')})(?=$|[\\s"'<),;]|\\.(?:\\s|$))`] : []),
  ];
  return new RegExp(alts.join('|'), 'gm');
}

/**
 * A secret as it stands in the text it is written into: as given, and escaped inside a JSON string (a quote, a
 * backslash or a newline in it is written as \", \\ or \n) and in XML (&quot;, &amp;, &lt;, …); a secret with such
 * a character would otherwise pass through every --json document and report unredacted.
 */
function writtenForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const xml = (s: string) =>
    s
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;');
  return [...new Set([secret, json, xml(secret), xml(json), JSON.stringify(json).slice(1, -1)])];
}

/** Replace only the known secrets (see secretPattern) with [REDACTED]; no patterns, so it is safe on rendered JSON/XML. */
export function redactKnown(text: string, secrets: readonly string[]): string {
  const re = secretPattern(secrets);
  return re ? text.replace(re, REDACTED) : text;
}

/** A line break as a text has it, or as a JSON string escapes it. */
const NL = String.raw`(?:[ \t]*(?:\r?\n|(?:\\r)?\\n))+`;
/** A PEM key's body: its header lines (Proc-Type: …) and base64 lines, or one line folded into spaces as an excerpt shows it. */
const KEY_BODY = String.raw`(?:${NL}[A-Za-z-]+: [^\r\n\\"]*|(?:${NL}|[ \t]+)[A-Za-z0-9+/=]+)*`;
/**
 * A private key, its END line matched only after its own body: a key cut off (an excerpt) and the whole key later in
 * the same text (a --json document's message and value) were one match, and everything between them was lost (Q194).
 */
const WHOLE_KEY = new RegExp(
  String.raw`-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----${KEY_BODY}(?:${NL}|[ \t]+)?-----END \1PRIVATE KEY-----`,
  'g',
);
/** A private key without its END line: the BEGIN line and the body after it, not the rest of the text (Q194). */
const CUT_KEY = new RegExp(String.raw`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----${KEY_BODY}`, 'g');

// Note: value patterns stop at quotes and backslashes so redacting escaped JSON text keeps it well-formed.
const PATTERNS: readonly [RegExp, string][] = [
  // PEM private keys, including OpenSSH's ("-----BEGIN OPENSSH PRIVATE KEY-----") and encrypted ones.
  [WHOLE_KEY, REDACTED],
  // A private key cut off before its END line (a log tail, a truncated error): its body only, the lines of base64 (or
  // of a header, Proc-Type: …) after it, one line folded into spaces as an excerpt shows it. Not the rest of the text:
  // a key given by mistake as an input ate the problems after its own and the end of a --json document (Q194).
  [CUT_KEY, REDACTED],
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
  // The same URL read as a path ("no file at /work/https:/bob:<t>@host/nomad": a path collapses "//"); git:/<dir>@<ref>
  // is a build spec, not a URL.
  [/\b(?!git:)([a-z][a-z0-9+.-]*:\/)(?=[^/])[^\s/?#@"'\\]+@/gi, `$1${REDACTED}@`],
  // user:password@host with no scheme (an ssh jump host or address written that way): the password. Not a path's
  // (library/redis:7@sha256:…), an image digest, nor a build spec (git:nomad@v1.9.3 is a directory and its ref), nor
  // a bisect's JUnit suite (bisect:task-dirs@v2.0.4..v2.0.5: the check and the good ref).
  [
    /(?<=^|[\s"'=(,[])(?!(?:git|path|bisect):)([A-Za-z0-9._-]+:)[^\s/@"'\\:]{4,}@(?!sha\d+:)(?=[A-Za-z0-9.-]+(?:[:/\s"'\\,)\]]|$))/gm,
    `$1${REDACTED}@`,
  ],
  // A token in a URL's query: ?token=<t>, &access_token=<t>, ?X-Amz-Signature=<t>, …
  [
    /([?&](?:[a-z0-9_-]*(?:token|secret|password|passwd|signature|credential|api[_-]?key|auth)[a-z0-9_-]*|key|sig)=)[^\s&#"'\\]+/gi,
    `$1${REDACTED}`,
  ],
];

/** Replace every known secret (see secretPattern) and every secret-shaped fragment (tokens, private keys) with [REDACTED]. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = redactKnown(text, secrets);
  for (const [re, by] of PATTERNS) out = out.replace(re, by);
  // Note: an environment file's line (AWS_SECRET_ACCESS_KEY=…, DB_PASSWORD=…) whose name says it holds a secret: a
  // .env given by mistake as a matrix file, a fault schedule or a known-issue file was echoed whole (Q181)
  // ... and a JSON string under a secret-named key ("aws_secret_access_key": "…", a docker config's "auth"), and a
  // .netrc's password: a credentials file given by mistake as a known-issue file is shown as JSON (Q187)
  return out
    .replace(ENV_ASSIGNMENT, (all, name: string, eq: string, value: string) =>
      SECRET_NAME.test(name) && value !== REDACTED ? `${name}${eq}${REDACTED}` : all,
    )
    .replace(JSON_MEMBER, (all, key: string, name: string, sep: string, value: string) =>
      (SECRET_NAME.test(name) || /^auths?$/i.test(name)) && value !== REDACTED ? `${key}${sep}${REDACTED}` : all,
    )
    .replace(NETRC_PASSWORD, `$1${REDACTED}`);
}

/** "name": "value" in JSON, raw or escaped inside another JSON string (\"name\":\"value\"); a string value only. */
const JSON_MEMBER = /(\\?"([A-Za-z_][A-Za-z0-9_.-]*)\\?")(\s*:\s*\\?")([^"\\]+)(?=\\?")/g;

/** A .netrc entry's password: `machine <host> login <user> password <p>` (or `default login <user> password <p>`). */
const NETRC_PASSWORD = /(\b(?:machine|default|login|account)\b[^\n"]*?\bpassword\s+)(?!\[REDACTED\])[^\s"'\\]+/g;

/**
 * NAME=value as an environment file (or `export`) writes it: a shell name, `=`, a value up to a space or quote (not an
 * excerpt's "…": errors.ts `excerptOf` already cut the value off).
 */
const ENV_ASSIGNMENT = /(?<![A-Za-z0-9_.\/?&-])([A-Za-z_][A-Za-z0-9_]*)(\s*=\s*\\?["']?)([^\s"'\\…]+)/g;

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

/** A name that says its value is a secret (a job variable `registry_password`, `vault_token`, `api_key`, `gossipKey`). */
const SECRET_WORDS =
  /token|secret|passw|passwd|pwd|passphrase|(?:^|[_-])pass(?:$|[_-])|(?:api|encryption|signing|gossip|tls|ssh|access|master|hmac|jwt|license)[_-]?key|credential|private[_-]?key/i;
/** `pass` as a word of a camelCase name (dbPass, adminPass2), not inside one (bypassCache, compass, Passenger). */
const CAMEL_PASS = /(?:^|[a-z0-9])Pass(?:$|[A-Z0-9_-])/;
/**
 * The short words of a credential's name, as a whole word of it (snake, kebab or camelCase): `bearer`, `pat` (a
 * personal access token: github_pat, githubPat), `tok` (vault_tok, vaultTok), `pw` (admin_pw), `acl` (consulAcl, an ACL
 * token); not inside a word (pattern, path, stock, oracle).
 */
const SHORT_WORDS =
  /(?:^|[_-])(?:bearer|pat|tok|pw|acl|BEARER|PAT|TOK|PW|ACL|Bearer)(?:$|[_-])|[a-z0-9](?:Bearer|Pat|Tok|Pw|Acl)(?:$|[A-Z0-9_-])|^Bearer[A-Z0-9]/;
const SECRET_NAME = {
  test: (name: string) => SECRET_WORDS.test(name) || CAMEL_PASS.test(name) || SHORT_WORDS.test(name),
};

/**
 * The values of the entries whose name says they are secrets (a job's variables): the redactor cannot know them from
 * their look, and they would otherwise be printed wherever the config is (the plan, summary.json).
 */
export function secretsByName(entries: Record<string, unknown>): string[] {
  // Note: a number or a short word under such a name is a setting (token_ttl: 60), not a secret; redacted, every "60"
  // of every report would go with it
  return Object.entries(entries)
    .filter(([k, v]) => SECRET_NAME.test(k) && typeof v === 'string' && v.length >= 6 && !/^\d+$/.test(v))
    .map(([, v]) => v as string);
}

/** An option of a command line whose value is a password (ipmitool -P, --password <pw>, --password=<pw>). */
const PASSWORD_OPTION = /^(-P|--?pass(word)?|--?passwd|--?pw|--?token|--?secret|--?api-?key)$/i;

/**
 * The passwords in a command's argv (the user's power-reset command): the word after a password option and the value
 * of `--password=<pw>`. They would otherwise be printed wherever the command is (the plan, summary.json, its errors).
 */
export function secretsInArgv(argv: readonly string[]): string[] {
  return argv
    .flatMap((w, i) => {
      const eq = /^--?(pass(word)?|passwd|pw|token|secret|api-?key)=(.+)$/i.exec(w);
      if (eq) return [eq[3]!];
      // ipmitool -P<pw>, the password written against its option: the whole word (a secret inside a word is not matched)
      if (/^-P.{4,}$/.test(w)) return [w];
      // env IPMI_PASSWORD=<pw> ipmitool -E …: a variable whose name says secret
      const assign = /^([A-Za-z_][A-Za-z0-9_]*)=(.+)$/.exec(w);
      if (assign && SECRET_NAME.test(assign[1]!)) return [assign[2]!];
      const next = argv[i + 1];
      // curl -u user:<pw>: the part after the first ":"
      if (/^(-u|--user)$/.test(w) && next?.includes(':')) return [next.slice(next.indexOf(':') + 1)];
      return PASSWORD_OPTION.test(w) && next ? [next] : [];
    })
    .filter((pw) => pw.length >= 4);
}

/** Object keys whose string values are secret whatever they look like. */
const SECRET_KEYS =
  /^(secretid|secret_id|token|acltoken|x-nomad-token|authorization|nomad_token|privatekey|private_key|password)$/i;

/** Redact every string (values and keys) in a JSON-able value; values under secret-named keys are replaced whole. */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string')
      return (key !== undefined && SECRET_KEYS.test(key) && v !== '') || (v !== '' && secrets.includes(v))
        ? REDACTED
        : redact(v, secrets);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k, secrets), walk(x, k)]));
    }
    return v;
  };
  return walk(value) as T;
}
