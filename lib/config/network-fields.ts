// The config values that name places: lab subnets, network namespaces, an http(s) mirror URL (never echoing its
// secrets), the existing hosts of the SSH provider with their jump hosts, box and CPU model names; each parser with
// its JSON Schema.
import { bad, described, int, ok, schemaOfParser, str, type BadPart, type Parsed } from './fields.js';

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
 * is a part of its own ("[1].port"), the good keys kept as `partial`. Whether the required keys are there is judged
 * with the provider (validate.ts).
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
    // Note: the good keys of every entry still reach the provider's rules (a missing user, a key file it cannot use,
    // the list beside the one-host form): told with the bad entries, not in a round after them
    return parts.length ? { ok: false, message: 'has bad entries', fix: example, parts, partial: hosts } : ok(hosts);
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
