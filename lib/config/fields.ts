// A configuration key's shape (where it comes from: harness.yaml key, flag, env var; how it is checked) and the plain
// parsers with their JSON Schemas; durations.ts and network-fields.ts hold the parsers of durations and of places.
import type { ConfigProblem } from '../errors.js';

/** A bad part of a structured value (one entry of a list): `at` is appended to the field, e.g. "[1].address". */
export interface BadPart {
  at: string;
  value: unknown;
  message: string;
  fix: string;
}

export type Parsed =
  | { ok: true; value: unknown }
  /** `parts`: each bad part of a list or mapping, reported as a problem of its own (field + at) */
  | {
      ok: false;
      message: string;
      fix: string;
      parts?: BadPart[];
      shown?: unknown;
      /**
       * What of the value is good (a host list's entries without their bad keys): the key stays refused, but the rules
       * judged after the fields (the provider's, its key files) see it, so their problems are told in the same round
       */
      partial?: unknown;
    };

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
  /**
   * The value names a file or folder: one the command reads (an input slot: test/integration/input-slots.test.ts gives
   * every one a FIFO and a device), or one it writes (a report, the work dir). Flags with either complete as files.
   */
  file?: 'read' | 'write';
  parse: (raw: unknown) => Parsed;
}

/** The HarnessConfig path of a harness.yaml key by the naming rule: each part in camelCase (lab.memory_mb -> lab.memoryMb). */
/** A row of a table of keys: `path` is left out where it is the key's own path in camelCase (configPathOf). */
export type FieldRow = Omit<Field, 'path'> & { path?: string[] };

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

export const ok = (value: unknown): Parsed => ({ ok: true, value });
export const bad = (message: string, fix: string): Parsed & { ok: false } => ({ ok: false, message, fix });

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
