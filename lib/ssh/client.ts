// SshMachine: a Machine reached over one cached ssh2 connection (exec with deadline, SFTP upload, tunnels, boot id).
import { performance } from 'node:perf_hooks';
import { HarnessError, TimeoutError } from '../errors.js';
import type { ExecOptions, ExecResult, Machine, Tunnel } from '../model/lab.js';
import type { Logger } from '../log/events.js';
import type { Deadline } from '../time/deadlines.js';
import { CONNECT_TIMEOUT_MS, connectUntil, readPrivateKey, SshError, type SshClient } from './connect.js';
import { startForward } from './forward.js';
import { quote } from '../shell/quote.js';
import { sftpPut } from './sftp.js';
import type { SshTarget } from '../shell/target.js';
import type { ClientChannel } from 'ssh2';

/** The remote command was never started (the channel could not be opened). */
class NotStarted extends SshError {}

/** Where Linux keeps the id of the current boot; it changes on every boot. */
const BOOT_ID_COMMAND = 'cat /proc/sys/kernel/random/boot_id';
/** After TERM on the deadline, KILL this much later, then close the channel. */
const KILL_AFTER_MS = 500;

export interface SshMachineOptions {
  role: string;
  name: string;
  target: SshTarget;
  logger?: Logger;
  connectTimeoutMs?: number;
  /** command printing the boot id; injectable so tests can fake a reboot */
  bootIdCommand?: string;
  readKey?: (path: string) => Promise<Buffer>;
  /** log every output line of every command (--verbose), not only of commands run with `stream` */
  streamOutput?: boolean;
}

/** Send a signal request (sshd kills the session's process group); ssh2's own `signal()` is a no-op once stdin got EOF. */
function signalChannel(ch: ClientChannel, name: 'TERM' | 'KILL'): void {
  // Note: ssh2 checks `writable`, which is false after ch.end(); the protocol accepts the request while the channel is open.
  const inner = ch as unknown as {
    _client?: { _protocol?: { signal(id: number, sig: string): void } };
    outgoing?: { id: number; state: string };
  };
  try {
    if (ch.writable) ch.signal(name);
    else if (inner.outgoing?.state === 'open' || inner.outgoing?.state === 'eof')
      inner._client?._protocol?.signal(inner.outgoing.id, name);
  } catch {
    /* the channel is already gone */
  }
}

/** A Machine over SSH: one lazily opened connection, re-opened after a drop or `disconnect()`. */
export class SshMachine implements Machine {
  readonly role: string;
  readonly name: string;
  readonly target: SshTarget;
  private readonly o: SshMachineOptions;
  private key: Promise<Buffer> | undefined;
  private conn: Promise<SshClient> | undefined;
  /** why a connection broke, when ssh2 said (read by the command it cut short) */
  private readonly connError = new WeakMap<SshClient, string>();

  constructor(o: SshMachineOptions) {
    this.o = o;
    this.role = o.role;
    this.name = o.name;
    this.target = o.target;
  }

  /** The cached connection, opened (with retries until `deadline`) when there is none. */
  connection(deadline: Deadline): Promise<SshClient> {
    if (!this.conn) {
      const p = (async () => {
        this.key ??= readPrivateKey(this.target, this.o.readKey).catch((err) => {
          this.key = undefined;
          throw err;
        });
        const c = await connectUntil(this.target, await this.key, {
          deadline,
          timeoutMs: this.o.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
        });
        const forget = () => {
          if (this.conn === p) this.conn = undefined;
        };
        c.on('close', forget);
        c.on('end', forget);
        c.on('error', (err: Error) => {
          // Note: e.g. "Keepalive timeout" (a peer that stopped answering): said with the command it cut short
          this.connError.set(c, err.message);
          forget();
        });
        return c;
      })();
      this.conn = p;
      p.catch(() => {
        if (this.conn === p) this.conn = undefined;
      });
    }
    return this.conn;
  }

  private log(command: string, extra: { exitCode?: number; durationMs?: number; output?: string }): void {
    // Note: logged as run; the console stream the logger writes to redacts (lib/log/redact.ts).
    this.o.logger?.({ kind: 'ssh', t: Math.round(performance.now()), machine: this.name, command, ...extra });
  }

  /** Run `cmd` (built with lib/shell/quote.ts) and return its exit code and output; on the deadline the remote command is signalled and a TimeoutError names it. */
  async exec(cmd: string, opts: ExecOptions): Promise<ExecResult> {
    try {
      return await this.execOnce(cmd, opts);
    } catch (err) {
      // A command that never started (the connection died under us, e.g. "No response from server" after sshd went
      // away) is safe to run again, once, on a fresh connection within the same deadline.
      if (!(err instanceof NotStarted) || opts.deadline.signal.aborted) throw err;
      return this.execOnce(cmd, opts);
    }
  }

  private async execOnce(cmd: string, opts: ExecOptions): Promise<ExecResult> {
    const full = opts.sudo ? `sudo -n sh -c ${quote(cmd)}` : cmd;
    const conn = await this.connection(opts.deadline);
    const started = performance.now();
    return new Promise<ExecResult>((resolve, reject) => {
      const { signal } = opts.deadline;
      if (signal.aborted) return reject(signal.reason);
      conn.exec(full, (err, ch) => {
        if (err) {
          void this.disconnect();
          return reject(new NotStarted(`ssh ${this.name}: cannot start ${cmd}: ${err.message}`));
        }
        const out: Buffer[] = [];
        const errOut: Buffer[] = [];
        let settled = false;
        const finish = (f: () => void) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          f();
        };
        const onAbort = () => {
          signalChannel(ch, 'TERM');
          setTimeout(() => {
            signalChannel(ch, 'KILL');
            ch.close();
          }, KILL_AFTER_MS).unref();
          const reason: unknown = signal.reason;
          if (reason !== undefined && !(reason instanceof TimeoutError)) return finish(() => reject(reason));
          finish(() =>
            reject(
              new TimeoutError(
                `${this.name}: ${cmd}`,
                performance.now() - started,
                'deadline reached; remote command signalled (TERM, then KILL) and its channel closed',
              ),
            ),
          );
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const lines = (buf: Buffer) => {
          if (opts.stream || this.o.streamOutput)
            for (const l of buf.toString('utf8').split('\n')) if (l) this.log(cmd, { output: l });
        };
        ch.on('data', (b: Buffer) => (out.push(b), lines(b)));
        ch.stderr.on('data', (b: Buffer) => (errOut.push(b), lines(b)));
        ch.on('close', (code: number | null | undefined, sig?: string) => {
          const durationMs = performance.now() - started;
          finish(() => {
            if (typeof code !== 'number') {
              const why = this.connError.get(conn);
              const detail = [sig && `signal ${sig}`, why].filter(Boolean).join('; ');
              const running = `${cmd}${detail ? ` (${detail})` : ''}`;
              return reject(new SshError(`ssh ${this.name}: connection dropped while running ${running}`));
            }
            this.log(cmd, { exitCode: code, durationMs });
            resolve({
              code,
              stdout: Buffer.concat(out).toString('utf8'),
              stderr: Buffer.concat(errOut).toString('utf8'),
              durationMs,
            });
          });
        });
        if (opts.stdin !== undefined) ch.end(opts.stdin);
        else ch.end();
      });
    });
  }

  /** Copy a local file to the machine over SFTP, then chmod it. */
  async upload(localPath: string, remotePath: string, opts: { deadline: Deadline; mode?: number }): Promise<void> {
    await sftpPut(await this.connection(opts.deadline), { localPath }, remotePath, {
      ...opts,
      what: `${this.name}: upload ${localPath} -> ${remotePath}`,
    });
  }

  /** Write `content` to a file on the machine over SFTP, then chmod it. */
  async writeFile(
    remotePath: string,
    content: string | Buffer,
    opts: { deadline: Deadline; mode?: number },
  ): Promise<void> {
    await sftpPut(await this.connection(opts.deadline), { content }, remotePath, {
      ...opts,
      what: `${this.name}: write ${remotePath}`,
    });
  }

  /** The machine's current boot id (trimmed); changes exactly when it rebooted. */
  async bootId(opts: { deadline: Deadline }): Promise<string> {
    const cmd = this.o.bootIdCommand ?? BOOT_ID_COMMAND;
    const r = await this.exec(cmd, { deadline: opts.deadline });
    const id = r.stdout.trim();
    if (r.code !== 0 || !id)
      throw new HarnessError(`${this.name}: ${cmd} exited ${r.code} with ${JSON.stringify(id || r.stderr.trim())}`);
    return id;
  }

  /** A local 127.0.0.1 port forwarded to remoteHost:remotePort as seen from the machine (e.g. Nomad's 127.0.0.1:4646). */
  forward(remoteHost: string, remotePort: number, opts: { deadline: Deadline }): Promise<Tunnel> {
    return startForward((d) => this.connection(d), remoteHost, remotePort, {
      deadline: opts.deadline,
      machine: this.name,
      logger: this.o.logger,
    });
  }

  /** Close the cached connection; the next call opens a fresh one (after a reboot). */
  async disconnect(): Promise<void> {
    const p = this.conn;
    this.conn = undefined;
    if (!p) return;
    try {
      // Note: destroy, not end(): end() half-closes and leaves the socket open until the peer answers, and a VM that is
      // being reset or destroyed never does; the kernel then retransmits for ~15 minutes while the socket keeps this
      // process alive (the CLI lingered after a matrix run). ssh2's destroy() is a no-op once end() was called.
      (await p).destroy();
    } catch {
      /* a failed connection has nothing to close */
    }
  }
}
