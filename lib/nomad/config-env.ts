// Pure: the Nomad connection from explicit config and NOMAD_* environment variables, explicit first.
// Same variables and precedence as the official client (nomad-reference §1.1; api/api.go DefaultConfig).
import type { ConfigProblem } from '../errors.js';
import type { TlsOptions } from './transport.js';

/** Where and how to reach Nomad. `token` is a secret: print it only through describeConnection(). */
export interface NomadConnection {
  addr: string;
  token: string | undefined;
  namespace: string | undefined;
  region: string | undefined;
  tls: TlsOptions;
}

/** Explicit settings (harness.yaml, flags); any field given here beats the environment. */
type NomadConnectionInput = Partial<Omit<NomadConnection, 'tls'>> & { tls?: TlsOptions };

/** Nomad's own default address. */
export const DEFAULT_NOMAD_ADDR = 'http://127.0.0.1:4646';

type NomadConnectionResult = { ok: true; connection: NomadConnection } | { ok: false; problems: ConfigProblem[] };

/** Merge explicit config over NOMAD_* env vars; reports every bad value at once instead of guessing. */
export function resolveNomadConnection(
  explicit: NomadConnectionInput,
  env: Readonly<Record<string, string | undefined>>,
): NomadConnectionResult {
  const problems: ConfigProblem[] = [];
  const pick = (given: string | undefined, name: string): string | undefined => given ?? nonEmpty(env[name]);
  const addr = pick(explicit.addr, 'NOMAD_ADDR') ?? DEFAULT_NOMAD_ADDR;
  if (!/^(https?:\/\/[^/\s]+\/?$|unix:\/\S+$)/.test(addr)) {
    problems.push({
      field: explicit.addr !== undefined ? 'nomad.addr' : 'NOMAD_ADDR',
      value: addr,
      message: 'not a Nomad address',
      fix: 'use http://host:port, https://host:port or unix:/path/to/socket',
    });
  }
  const t = explicit.tls ?? {};
  let skipVerify = t.skipVerify;
  const rawSkip = nonEmpty(env.NOMAD_SKIP_VERIFY);
  if (skipVerify === undefined && rawSkip !== undefined) {
    skipVerify = parseGoBool(rawSkip);
    if (skipVerify === undefined)
      problems.push({
        field: 'NOMAD_SKIP_VERIFY',
        value: rawSkip,
        message: 'not a boolean',
        fix: 'use true/false (or 1/0, t/f)',
      });
  }
  const tls: TlsOptions = dropUndefined({
    caFile: pick(t.caFile, 'NOMAD_CACERT'),
    caPath: pick(t.caPath, 'NOMAD_CAPATH'),
    certFile: pick(t.certFile, 'NOMAD_CLIENT_CERT'),
    keyFile: pick(t.keyFile, 'NOMAD_CLIENT_KEY'),
    serverName: pick(t.serverName, 'NOMAD_TLS_SERVER_NAME'),
    skipVerify,
  });
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) {
    problems.push({
      field: tls.certFile ? 'NOMAD_CLIENT_KEY' : 'NOMAD_CLIENT_CERT',
      value: undefined,
      message: 'a client certificate needs both the certificate and the key',
      fix: 'set both NOMAD_CLIENT_CERT and NOMAD_CLIENT_KEY, or neither',
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    connection: {
      addr,
      token: pick(explicit.token, 'NOMAD_TOKEN'),
      namespace: pick(explicit.namespace, 'NOMAD_NAMESPACE'),
      region: pick(explicit.region, 'NOMAD_REGION'),
      tls,
    },
  };
}

/** A one-line description for logs and reports; says whether a token is set, never what it is. */
export function describeConnection(c: NomadConnection): string {
  const bits = [c.token ? 'token set' : 'no token'];
  if (c.namespace) bits.push(`namespace ${c.namespace}`);
  if (c.region) bits.push(`region ${c.region}`);
  if (c.tls.caFile || c.tls.caPath) bits.push('custom CA');
  if (c.tls.certFile) bits.push('client cert');
  if (c.tls.serverName) bits.push(`server name ${c.tls.serverName}`);
  if (c.tls.skipVerify) bits.push('TLS verification OFF');
  return `${c.addr} (${bits.join(', ')})`;
}

/** Go's strconv.ParseBool, which the official client uses for NOMAD_SKIP_VERIFY. */
export function parseGoBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
