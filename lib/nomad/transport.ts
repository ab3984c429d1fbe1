// A small HTTP(S) transport over node:http/node:https. Not global fetch: Nomad's TLS needs a CA,
// a client certificate and a server name (SNI), which fetch cannot take without extra packages.
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { HarnessError } from '../errors.js';
import { NomadUnreachableError } from './errors.js';

export interface TransportRequest {
  method: string;
  /** starts with /v1/ */
  path: string;
  query?: Record<string, string | undefined>;
  headers?: Record<string, string>;
  /** JSON-encoded when present */
  body?: unknown;
  signal: AbortSignal;
}

export interface TransportResponse {
  status: number;
  /** lower-cased header names */
  headers: Record<string, string>;
  body: string;
}

/** Sends one request and returns the raw answer; rejects only when no answer came. `stream`: see StreamTransport. */
export type Transport = ((req: TransportRequest) => Promise<TransportResponse>) & { stream?: StreamTransport };

/** A long-lived answer read as it arrives (the event stream): status and headers first, then the body in chunks. */
export interface StreamResponse {
  status: number;
  headers: Record<string, string>;
  /** the body as UTF-8 text chunks; ends when the server or the connection ends it, throws when it breaks */
  chunks: AsyncIterable<string>;
  /** drop the connection (idempotent) */
  close(): void;
}

/** Opens one streaming request; resolves when the status line arrived, rejects only when no answer came. */
type StreamTransport = (req: TransportRequest) => Promise<StreamResponse>;

interface TlsOptions {
  caFile?: string;
  caPath?: string;
  certFile?: string;
  keyFile?: string;
  serverName?: string;
  skipVerify?: boolean;
}

/** Build the query string, dropping undefined values (so `?index` is only sent when known). */
export function buildPath(path: string, query: Record<string, string | undefined> = {}): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.append(k, v);
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

/** A Transport to `addr` (http://, https:// or unix:/path), with Nomad's TLS options. */
export function createHttpTransport({ addr, tls = {} }: { addr: string; tls?: TlsOptions }): Transport {
  const unix = addr.startsWith('unix:') ? addr.slice('unix:'.length) : undefined;
  const base = unix ? new URL('http://localhost') : new URL(addr);
  const secure = base.protocol === 'https:';
  if (!unix && base.protocol !== 'http:' && !secure)
    throw new HarnessError(`NOMAD_ADDR must be http://, https:// or unix:/path (got ${addr})`, { exitCode: 2 });
  const agent = secure
    ? new https.Agent({ keepAlive: true, ...tlsAgentOptions(tls) })
    : new http.Agent({ keepAlive: true });
  const lib = secure ? https : http;
  const target = unix
    ? { socketPath: unix }
    : { hostname: base.hostname.replace(/^\[|\]$/g, ''), port: base.port || (secure ? 443 : 80) };
  const send: Transport = (req) =>
    new Promise<TransportResponse>((resolve, reject) => {
      const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
      const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
      if (payload !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(payload));
      }
      const opts: http.RequestOptions = {
        method: req.method,
        path: buildPath(req.path, req.query),
        headers,
        agent,
        signal: req.signal,
        ...target,
      };
      const fail = (err: unknown) => {
        // Note: an abort by the deadline or by Ctrl-C surfaces as the signal's own reason.
        if (req.signal.aborted && req.signal.reason instanceof HarnessError) reject(req.signal.reason);
        else
          reject(new NomadUnreachableError(req.method, req.path, addr, req.signal.aborted ? req.signal.reason : err));
      };
      const r = lib.request(opts, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', fail);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: flatten(res.headers),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      r.on('error', fail);
      r.end(payload);
    });
  // Note: a stream holds its socket until it is closed; the agent only supplies the TLS settings.
  send.stream = (req) =>
    openStream(
      lib,
      {
        method: req.method,
        path: buildPath(req.path, req.query),
        headers: { accept: 'application/json', ...req.headers },
        signal: req.signal,
        agent,
        ...target,
      },
      addr,
    );
  return send;
}

/** One streaming GET: resolves with the status once it arrives; the body is read chunk by chunk. */
function openStream(
  lib: typeof http | typeof https,
  opts: http.RequestOptions & { signal: AbortSignal },
  addr: string,
): Promise<StreamResponse> {
  return new Promise<StreamResponse>((resolve, reject) => {
    const r = lib.request(opts, (res) => {
      res.setEncoding('utf8');
      resolve({
        status: res.statusCode ?? 0,
        headers: flatten(res.headers),
        chunks: res as AsyncIterable<string>,
        close: () => void r.destroy(),
      });
    });
    r.on('error', (err) => {
      const signal = opts.signal;
      if (signal.aborted && signal.reason instanceof HarnessError) reject(signal.reason);
      else
        reject(
          new NomadUnreachableError(opts.method ?? 'GET', opts.path ?? '', addr, signal.aborted ? signal.reason : err),
        );
    });
    r.end();
  });
}

function flatten(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

// Note: NOMAD_CACERT wins over NOMAD_CAPATH, as in the official client (api/api.go).
function tlsAgentOptions(tls: TlsOptions): https.AgentOptions {
  const o: https.AgentOptions = { rejectUnauthorized: !tls.skipVerify };
  if (tls.caFile) o.ca = readFileSync(tls.caFile);
  else if (tls.caPath)
    o.ca = readdirSync(tls.caPath)
      .filter((f) => /\.(pem|crt|cer)$/i.test(f))
      .map((f) => readFileSync(join(tls.caPath!, f)));
  if (tls.certFile) o.cert = readFileSync(tls.certFile);
  if (tls.keyFile) o.key = readFileSync(tls.keyFile);
  if (tls.serverName) o.servername = tls.serverName;
  return o;
}
