// The table of every configuration key: where it comes from (harness.yaml key, flag, env var) and how it is checked.
import type { ConfigProblem } from '../errors.js';

/** A bad part of a structured value (one entry of a list): `at` is appended to the field, e.g. "[1].address". */
interface BadPart {
  at: string;
  value: unknown;
  message: string;
  fix: string;
}

export type Parsed =
  | { ok: true; value: unknown }
  /** `parts`: each bad part of a list or mapping, reported as a problem of its own (field + at) */
  | { ok: false; message: string; fix: string; parts?: BadPart[]; shown?: unknown };

export interface Field {
  /** dotted key in harness.yaml, e.g. "lab.memory_mb" */
  yaml: string;
  /** long flag without dashes, e.g. "memory" */
  flag?: string;
  /** environment variable */
  env?: string;
  /** path in HarnessConfig */
  path: string[];
  /** one line for the README and --help */
  doc: string;
  /** a secret: a bad value is never echoed back in a problem */
  secret?: boolean;
  /** an older name of another key (same config path): both work; given both, they must agree */
  aliasOf?: string;
  /** its flag may be given more than once (the values come as a list) */
  multiple?: boolean;
  parse: (raw: unknown) => Parsed;
}

/** The HarnessConfig path of a harness.yaml key by the naming rule: each part in camelCase (lab.memory_mb -> lab.memoryMb). */
export const configPathOf = (yaml: string): string[] =>
  yaml.split('.').map((part) => part.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));

/** A JSON Schema fragment: what a parser accepts, as editors and CI check a file (schemas/*.schema.json). */
export type JsonSchema = Record<string, unknown>;

/** `parse` with the JSON Schema of what it accepts attached (read back by schemaOfParser). */
export function described<F extends (raw: unknown) => Parsed>(
  parse: F,
  schema: JsonSchema,
): F & { schema: JsonSchema } {
  return Object.assign(parse, { schema });
}

/** The JSON Schema a parser carries, or undefined for one that carries none. */
export function schemaOfParser(parse: (raw: unknown) => Parsed): JsonSchema | undefined {
  return (parse as { schema?: JsonSchema }).schema;
}

/** A string with something in it besides blanks (what str() accepts). */
const NON_BLANK: JsonSchema = { type: 'string', pattern: '\\S' };

const ok = (value: unknown): Parsed => ({ ok: true, value });
const bad = (message: string, fix: string): Parsed & { ok: false } => ({ ok: false, message, fix });

/** A non-empty string. */
export const str = (fix: string) =>
  described(
    (raw: unknown): Parsed =>
      typeof raw === 'string' && raw.trim() !== '' ? ok(raw.trim()) : bad('must be a non-empty string', fix),
    NON_BLANK,
  );

/** One path or several (a list, or a flag given more than once; [] for none): always a list of non-empty strings. */
export const strList = (fix: string) =>
  described(
    (raw: unknown): Parsed => {
      const items = Array.isArray(raw) ? raw : [raw];
      return items.every((x) => typeof x === 'string' && x.trim() !== '')
        ? ok(items.map((x: string) => x.trim()))
        : bad('must be a non-empty string or a list of them', fix);
    },
    { anyOf: [NON_BLANK, { type: 'array', items: NON_BLANK }] },
  );

/** One of a fixed set of words. */
export const oneOf = <T extends string>(values: readonly T[]) =>
  Object.assign(
    (raw: unknown): Parsed =>
      typeof raw === 'string' && (values as readonly string[]).includes(raw)
        ? ok(raw)
        : bad(`must be one of ${values.join(', ')}`, `use one of: ${values.join(', ')}`),
    { values, schema: { type: 'string', enum: [...values] } as JsonSchema },
  );

/** An integer within bounds (strings of digits are accepted, as flags and env vars are strings). */
// Note: the schemas take numbers only; the CLI also takes digits in a string (flags and env vars are strings).
export const int = (min: number, max: number, unit = '') =>
  described(
    (raw: unknown): Parsed => {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
      return Number.isInteger(n) && n >= min && n <= max
        ? ok(n)
        : bad(
            `must be a whole number from ${min} to ${max}${unit}`,
            `give a whole number between ${min} and ${max}${unit}`,
          );
    },
    { type: 'integer', minimum: min, maximum: max },
  );

/** true/false (also "1", "0", "yes", "no" from env vars). */
// Note: the schemas take true and false only; the CLI also takes yes/no/1/0 (env vars are strings).
export const bool = described(
  (raw: unknown): Parsed => {
    if (typeof raw === 'boolean') return ok(raw);
    if (typeof raw === 'string' && /^(1|true|yes)$/i.test(raw)) return ok(true);
    if (typeof raw === 'string' && /^(0|false|no)$/i.test(raw)) return ok(false);
    return bad('must be true or false (also yes/no, 1/0)', 'write true or false');
  },
  { type: 'boolean' },
);

/** `keep`: a bool, or `on-failure` (keep the lab only when the run did not meet its expectations). */
export const keepMode = described(
  (raw: unknown): Parsed => {
    if (raw === 'on-failure') return ok(raw);
    const b = bool(raw);
    return b.ok ? b : bad('must be true, false or on-failure', 'write true, false or on-failure');
  },
  { oneOf: [{ type: 'boolean' }, { const: 'on-failure' }] },
);

const DURATION = /^(\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
/** A Go duration with a unit, as a JSON Schema (its bounds are the CLI's to check). */
const DURATION_SCHEMA: JsonSchema = { type: 'string', pattern: DURATION.source };

/** A Go duration string with a unit, as Nomad takes it ("90s", "5m", "1h30m"). */
export const goDuration = described(
  (raw: unknown): Parsed =>
    typeof raw === 'string' && DURATION.test(raw)
      ? ok(raw)
      : typeof raw === 'string' && /^-/.test(raw) && DURATION.test(raw.slice(1))
        ? bad('must be positive', 'write e.g. "90s", "5m" or "1h30m"')
        : bad('must be a Go duration with a unit', 'write e.g. "90s", "5m" or "1h30m"'),
  DURATION_SCHEMA,
);

/** Seconds in a Go duration string (pure; assumes goDuration accepted it). */
export function durationSeconds(d: string): number {
  const units: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  for (const m of d.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * (units[m[2]!] ?? 0);
  return total;
}

/** Seconds as the shortest Go duration: 90 -> "1m30s", 3600 -> "1h", 0.3 -> "300ms". */
export function goDurationOf(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)}ms`;
  const [h, m, sec] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), Math.round(seconds % 60)];
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${sec || (!h && !m) ? `${sec}s` : ''}`;
}

/** A round duration inside [min, max] seconds for a fix's example: the largest of a few usual ones at most half-way. */
function exampleWithin(min: number, max: number): number {
  const round = [3600, 1800, 600, 300, 120, 60, 30, 10, 5, 1];
  return round.find((v) => v >= min && v <= Math.max(min, max / 2)) ?? max;
}

/** A duration for a timeout: a Go duration or plain seconds; yields whole seconds. */
export const timeoutSeconds = (min: number, max: number) =>
  described(
    (raw: unknown): Parsed => {
      const s =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && /^\d+$/.test(raw)
            ? Number(raw)
            : typeof raw === 'string' && DURATION.test(raw)
              ? durationSeconds(raw)
              : NaN;
      const e = exampleWithin(min, max);
      return Number.isFinite(s) && s >= min && s <= max
        ? ok(Math.round(s))
        : bad(`must be a duration from ${min}s to ${max}s`, `write e.g. "${goDurationOf(e)}" or "${e}"`);
    },
    {
      anyOf: [
        { type: 'number', minimum: min, maximum: max },
        { type: 'string', pattern: `${DURATION.source}|^\\d+$` },
      ],
    },
  );

/**
 * A Go duration with a unit, kept as written (Nomad reads it), longer than 0 and at most `maxS` seconds: a value
 * Nomad would refuse, or one no run could outlast, is caught before anything is created.
 */
export const goDurationWithin = (maxS: number) =>
  described((raw: unknown): Parsed => {
    const e = `write a duration longer than 0 and at most ${goDurationOf(maxS)}, e.g. "${goDurationOf(exampleWithin(1, maxS))}"`;
    if (typeof raw === 'string' && /^-/.test(raw) && DURATION.test(raw.slice(1))) return bad('must be positive', e);
    const p = goDuration(raw);
    if (!p.ok) return p;
    const s = durationSeconds(raw as string);
    if (s <= 0) return bad('must be longer than 0', e);
    return s <= maxS ? p : bad(`must be at most ${goDurationOf(maxS)}`, e);
  }, DURATION_SCHEMA);

/** An IPv4 /24 network in 10.0.0.0/8 or 192.168.0.0/16 (libvirt networks). */
const SUBNET24 = /^(10\.\d{1,3}\.\d{1,3}|192\.168\.\d{1,3})\.0\/24$/;
export const subnet24 = (example: string) =>
  described(
    (raw: unknown): Parsed =>
      typeof raw === 'string' &&
      SUBNET24.test(raw) &&
      raw
        .split('.')
        .slice(0, 3)
        .every((o) => Number(o.split('/')[0]) <= 255)
        ? ok(raw)
        : bad('must be a private IPv4 /24 network', `write e.g. "${example}"`),
    { type: 'string', pattern: SUBNET24.source },
  );

/**
 * A string of one form, checked up front (a value that would otherwise fail only once Vagrant or QEMU read it, minutes
 * later, or reach a terminal as escape codes). The value is shown escaped by the problem's formatter.
 */
const named = (form: RegExp, what: string, fix: string) =>
  described(
    (raw: unknown): Parsed =>
      typeof raw === 'string' && form.test(raw.trim()) ? ok(raw.trim()) : bad(`must be ${what}`, fix),
    { type: 'string', pattern: form.source },
  );

/** A Vagrant box name: `name` or `org/name`, each part letters, digits, - _ . (not starting with a dot). */
const BOX = /^[A-Za-z0-9][A-Za-z0-9_.-]*(\/[A-Za-z0-9][A-Za-z0-9_.-]*)?$/;
export const boxName = named(
  BOX,
  'a Vagrant box name: name or org/name (letters, digits, - _ .)',
  'give a box name, e.g. nomad-reboot-harness/bookworm',
);

/** A QEMU CPU model as libvirt names it (qemu-system-x86_64 -cpu help): Nehalem, Skylake-Client-v4, host, max. */
const CPU_MODEL = /^[A-Za-z0-9][A-Za-z0-9_.+-]*$/;
export const cpuModel = named(
  CPU_MODEL,
  'a QEMU CPU model name (letters, digits, - _ . +)',
  'give a model `qemu-system-x86_64 -cpu help` lists, e.g. Nehalem',
);

/** A network namespace name, or "" for none. */
const NETNS = /^[A-Za-z0-9_.-]{0,32}$/;
export const netnsName = described(
  (raw: unknown): Parsed =>
    typeof raw === 'string' && NETNS.test(raw)
      ? ok(raw)
      : bad(
          typeof raw === 'string' && raw.length > 32 && /^[A-Za-z0-9_.-]*$/.test(raw)
            ? `must be a network namespace name of at most 32 characters (this one has ${raw.length})`
            : 'must be a network namespace name (letters, digits, - _ .; at most 32 characters) or ""',
          'write e.g. "nrh-lab", or "" to use the host network',
        ),
  { type: 'string', pattern: NETNS.source },
);

/** A URL as a problem may show it: credentials, query and fragment replaced (they may hold a token). */
function withoutSecretParts(text: string): string {
  return text
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1[REDACTED]@')
    .replace(/\?[^#]*/, '?[REDACTED]')
    .replace(/#.*/, '#[REDACTED]');
}

/** An http(s) URL without query or fragment (a releases site or mirror); a trailing slash is dropped. */
export const httpUrl = described(
  (raw: unknown): Parsed => {
    const text = typeof raw === 'string' ? raw.trim() : '';
    let u: URL | undefined;
    try {
      u = new URL(text);
    } catch {
      u = undefined;
    }
    const fix = 'write e.g. "https://releases.hashicorp.com" or your mirror\'s base URL';
    const shown = typeof raw === 'string' ? withoutSecretParts(text) : raw;
    const port = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?(?:\[[^\]]*\]|[^/?#:]*):(\d+)/i.exec(text)?.[1];
    if (!u && port !== undefined && Number(port) > 65535)
      return { ...bad(`has port ${port}, out of range (a port is 1 to 65535)`, fix), shown };
    if (!u || !/^https?:$/.test(u.protocol)) return { ...bad('must be an http(s) URL', fix), shown };
    // Note: a query often carries a token (?token=…); it is refused and never echoed.
    if (u.search || u.hash)
      return {
        ...bad(
          `must have no ${u.search ? 'query string (?…)' : 'fragment (#…)'}: the releases site is fetched as <url>/<version>/<file>`,
          'drop it; a token in the query is not supported (serve the mirror to this host without one, e.g. a proxy on 127.0.0.1 that adds it)',
        ),
        shown,
      };
    // Note: fetch refuses a URL with credentials, and a secret in a URL ends up in logs, reports and repro commands.
    if (u.username || u.password) {
      return bad(
        'must not carry credentials (user:password@ in the URL is not supported)',
        'drop them from the URL: the releases site is fetched without authentication, so serve the mirror to this ' +
          'host without it (e.g. a proxy on 127.0.0.1 that adds the credentials), or download the release yourself and ' +
          'pass the path of its nomad binary',
      );
    }
    return ok(text.replace(/\/+$/, ''));
  },
  { type: 'string', pattern: '^\\s*https?://[^/?#@\\s]+(/[^?#\\s]*)?\\s*$' },
);

const JUMP = /^(?:([A-Za-z0-9._-]+)@)?([A-Za-z0-9._-]+|\[[0-9a-fA-F:]+\])(?::(\d{1,5}))?$/;

/** The parts of a jump host spec. */
interface JumpParts {
  user: string | undefined;
  host: string;
  port: number | undefined;
}

/** `[user@]host[:port]` of a jump host, split (user and port undefined when not given); undefined when malformed. */
export function splitJump(spec: string): JumpParts | undefined {
  const m = JUMP.exec(spec.trim());
  if (!m || (m[3] !== undefined && (Number(m[3]) < 1 || Number(m[3]) > 65535))) return undefined;
  return { user: m[1], host: m[2]!.replace(/^\[|\]$/g, ''), port: m[3] === undefined ? undefined : Number(m[3]) };
}

/** A jump host as ssh -J takes one: [user@]host[:port]. */
const jumpHost = described(
  (raw: unknown): Parsed =>
    typeof raw === 'string' && splitJump(raw)
      ? ok(raw.trim())
      : bad('must be [user@]host[:port]', 'write e.g. admin@bastion.example.com:22'),
  { type: 'string', pattern: `^\\s*${JUMP.source.slice(1, -1)}\\s*$` },
);

/** A command as an argv list (a YAML list of strings; a string is split on spaces, with no shell quoting). */
export const argvList = described(
  (raw: unknown): Parsed => {
    const list = typeof raw === 'string' ? raw.trim().split(/\s+/).filter(Boolean) : raw;
    return Array.isArray(list) && list.length > 0 && list.every((x) => typeof x === 'string' && x !== '')
      ? ok(list)
      : bad('must be a command: a list of words', 'write e.g. [virsh, reset, "{role}"] or "ipmitool -H {address} ..."');
  },
  { anyOf: [{ type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } }, NON_BLANK] },
);

/** A list of non-empty strings (a single string is a list of one). */
export const textList = (fix: string) =>
  described(
    (raw: unknown): Parsed => {
      const list = typeof raw === 'string' ? [raw] : raw;
      return Array.isArray(list) && list.every((x) => typeof x === 'string' && x.trim() !== '')
        ? ok(list.map((x: string) => x.trim()))
        : bad('must be a list of texts', fix);
    },
    { anyOf: [{ type: 'array', items: NON_BLANK }, NON_BLANK] },
  );

/** Turn a field's parse failure into the problems the user sees: one per bad part when it names them. */
export function problems(field: string, value: unknown, p: Parsed & { ok: false }): ConfigProblem[] {
  if (p.parts?.length)
    return p.parts.map((b) => ({ field: `${field}${b.at}`, value: b.value, message: b.message, fix: b.fix }));
  return [{ field, value: 'shown' in p ? p.shown : value, message: p.message, fix: p.fix }];
}

/** One of a fixed set of whole numbers (strings of digits are accepted, as flags and env vars are strings). */
export const intOneOf = (values: readonly number[], fix: string) =>
  described(
    (raw: unknown): Parsed => {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
      return values.includes(n) ? ok(n) : bad(`must be one of ${values.join(', ')}`, fix);
    },
    { type: 'integer', enum: [...values] },
  );

/** How each key of one existing host is checked (the list entries and the older lab.hosts.<role>.<key> keys). */
export const HOST_KEYS = {
  address: str('give a host name or IP address'),
  user: str('give a user name, e.g. admin'),
  key: str('give a private key file, e.g. ~/.ssh/id_ed25519'),
  port: int(1, 65535),
  jump: jumpHost,
} as const;

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A list of existing hosts, each a mapping of address, user, key, port (22 unless given) and jump; every bad entry key
 * is a part of its own ("[1].port"). Whether the required keys are there is judged with the provider (validate.ts).
 */
export const hostList = described(
  (raw: unknown): Parsed => {
    const example = 'write e.g. [{address: 10.0.0.5, user: admin, key: ~/.ssh/id_ed25519}]';
    if (!Array.isArray(raw)) return bad('must be a list of hosts (address, user, key, port, jump each)', example);
    const parts: BadPart[] = [];
    const hosts = raw.map((entry, i) => {
      const host: Record<string, unknown> = {
        address: undefined,
        user: undefined,
        key: undefined,
        port: 22,
        jump: undefined,
      };
      if (!isMapping(entry)) {
        parts.push({
          at: `[${i}]`,
          value: entry,
          message: 'must be a mapping of address, user, key, port, jump',
          fix: example,
        });
        return host;
      }
      for (const [k, v] of Object.entries(entry)) {
        const parse = (HOST_KEYS as Record<string, (raw: unknown) => Parsed>)[k];
        if (!parse) {
          const fix = `use ${Object.keys(HOST_KEYS).join(', ')}`;
          parts.push({ at: `[${i}].${k}`, value: k, message: 'is not a key of a host', fix });
          continue;
        }
        const p = parse(v);
        if (p.ok) host[k] = p.value;
        else parts.push({ at: `[${i}].${k}`, value: v, message: p.message, fix: p.fix });
      }
      return host;
    });
    return parts.length ? { ok: false, message: 'has bad entries', fix: example, parts } : ok(hosts);
  },
  {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(Object.entries(HOST_KEYS).map(([k, parse]) => [k, schemaOfParser(parse)])),
    },
  },
);

/** HCL variables for a job: a mapping of names to strings, numbers or booleans (harness.yaml `job.vars`). */
export const hclVars = described(
  (raw: unknown): Parsed => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      return bad(
        'must be a mapping of variable names to values',
        'write e.g. "vars: { count: 3, image: web:1 }" under "job:"',
      );
    const bads = Object.entries(raw as Record<string, unknown>).filter(
      ([k, v]) => !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(k) || !['string', 'number', 'boolean'].includes(typeof v),
    );
    return bads.length
      ? bad(
          `has entries that are not name: string|number|boolean (${bads.map(([k]) => k).join(', ')})`,
          'give each variable a plain value; lists and maps are not supported here',
        )
      : ok({ ...(raw as Record<string, string | number | boolean>) });
  },
  {
    type: 'object',
    propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_-]*$' },
    additionalProperties: { type: ['string', 'number', 'boolean'] },
  },
);
