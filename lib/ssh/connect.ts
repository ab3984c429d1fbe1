// Open one authenticated ssh2 connection to an SshTarget, bounded by a per-attempt timeout; retry until a deadline.
import { promises as fs } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type ssh2Types from 'ssh2';
import { HarnessError, formatMs } from '../errors.js';
import { remaining, type Deadline } from '../time/deadlines.js';
import { waitFor } from '../time/wait-for.js';
import type { SshTarget } from '../shell/target.js';

/** Per-attempt connect + handshake timeout: a booting VM either answers within seconds or is not up yet. */
export const CONNECT_TIMEOUT_MS = 5000;
/** Keepalive probes detect a dead peer (hard reset) after about interval × count. */
const KEEPALIVE_MS = 5000;
const KEEPALIVE_COUNT = 3;

export type SshClient = InstanceType<typeof ssh2Types.Client>;

let ssh2Module: Promise<typeof ssh2Types> | undefined;
/** ssh2 on first use: a CLI that ends before any SSH starts ~40 ms sooner (test speed). */
const loadSsh2 = (): Promise<typeof ssh2Types> => (ssh2Module ??= import('ssh2').then((m) => m.default));

/** An SSH connection problem (refused, handshake failed, connection dropped mid-command). */
export class SshError extends HarnessError {}

/** Read the first readable IdentityFile; fails fast (no retry) when none can be read. */
export async function readPrivateKey(
  target: SshTarget,
  read: (p: string) => Promise<Buffer> = (p) => fs.readFile(p),
): Promise<Buffer> {
  const tried: string[] = [];
  for (const file of target.identityFiles) {
    try {
      return await read(file);
    } catch (err) {
      tried.push(`${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  }
  throw new HarnessError(
    `ssh ${target.host}: no readable private key; tried ${tried.join(', ') || 'nothing (no IdentityFile in ssh-config)'}`,
  );
}

/**
 * Why ssh cannot sign with this key file's contents (not a private key, or one encrypted with a passphrase the
 * harness has no way to ask for), or undefined when it can: the same parser the connection uses.
 */
export async function privateKeyProblem(key: Buffer): Promise<string | undefined> {
  const { utils } = await loadSsh2();
  const parsed = utils.parseKey(key);
  if (parsed instanceof Error) return parsed.message;
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!first) return 'no key in it';
  return first.isPrivateKey() ? undefined : 'a public key, not the private key';
}

/** One connection attempt; rejects with SshError after `timeoutMs` or when `signal` fires. Host keys are not verified (Vagrant's ssh-config says StrictHostKeyChecking no). */
export function connectOnce(
  target: SshTarget,
  privateKey: Buffer,
  { timeoutMs, signal, sock }: { timeoutMs: number; signal?: AbortSignal; sock?: Duplex },
): Promise<SshClient> {
  if (target.jump && !sock) {
    return connectVia(target, target.jump, privateKey, { timeoutMs, ...(signal ? { signal } : {}) });
  }
  return loadSsh2().then(
    (ssh2) =>
      new Promise<SshClient>((resolve, reject) => {
        const c = new ssh2.Client();
        const where = `${target.user}@${target.hostName}:${target.port}`;
        const fail = (msg: string) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          c.removeAllListeners('ready');
          c.on('error', () => {}); // late errors of an abandoned attempt must not crash the process
          c.destroy();
          reject(new SshError(`ssh ${where}: ${msg}`));
        };
        const onAbort = () => fail('aborted');
        const timer = setTimeout(() => fail(`no SSH handshake within ${formatMs(timeoutMs)}`), timeoutMs);
        signal?.addEventListener('abort', onAbort, { once: true });
        // Note: ssh2 is loaded before this runs; a signal that fired meanwhile has no event left to send
        if (signal?.aborted) {
          onAbort();
          return;
        }
        c.once('ready', () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(c);
        });
        c.once('error', (err: Error) => fail(err.message));
        c.connect({
          ...(sock ? { sock } : {}),
          host: target.hostName,
          port: target.port,
          username: target.user,
          privateKey,
          readyTimeout: timeoutMs,
          keepaliveInterval: KEEPALIVE_MS,
          keepaliveCountMax: KEEPALIVE_COUNT,
          // Note: the guest CPU under software emulation (Nehalem) has no AES-NI, so AES runs in emulated software;
          // ChaCha20-Poly1305 is several times cheaper there, which matters for uploading a 100 MB Nomad build.
          algorithms: { cipher: { prepend: ['chacha20-poly1305@openssh.com'], append: [], remove: [] } },
        });
      }),
  );
}

/**
 * Connect through a jump host (ssh -J) with the same key: the jump connection opens a direct-tcpip channel to the
 * target, the target's SSH runs over it, and the jump connection is destroyed when the target's closes.
 */
async function connectVia(
  target: SshTarget,
  jump: SshTarget,
  key: Buffer,
  o: { timeoutMs: number; signal?: AbortSignal },
): Promise<SshClient> {
  const t0 = performance.now();
  const hop = await connectOnce(jump, key, o);
  const where = `${target.user}@${target.hostName}:${target.port} via ${jump.user}@${jump.hostName}:${jump.port}`;
  try {
    const channel = await new Promise<Duplex>((resolve, reject) => {
      hop.forwardOut('127.0.0.1', 0, target.hostName, target.port, (err, ch) =>
        err ? reject(new SshError(`ssh ${where}: ${err.message}`)) : resolve(ch),
      );
    });
    const left = Math.max(1, o.timeoutMs - (performance.now() - t0));
    const c = await connectOnce({ ...target, jump: undefined }, key, { ...o, timeoutMs: left, sock: channel });
    c.once('close', () => hop.destroy());
    return c;
  } catch (err) {
    hop.destroy();
    throw err;
  }
}

/** Connect, retrying every failed attempt until the deadline (TimeoutError names the target and the last error). */
export function connectUntil(
  target: SshTarget,
  privateKey: Buffer,
  { deadline, timeoutMs = CONNECT_TIMEOUT_MS }: { deadline: Deadline; timeoutMs?: number },
): Promise<SshClient> {
  return waitFor(
    `SSH to ${target.host} (${target.user}@${target.hostName}:${target.port})`,
    async (d) => ({
      done: true as const,
      value: await connectOnce(target, privateKey, {
        timeoutMs: Math.max(1, Math.min(timeoutMs, remaining(d))),
        signal: d.signal,
      }),
    }),
    { deadline, intervals: [250, 500, 1000] },
  );
}
