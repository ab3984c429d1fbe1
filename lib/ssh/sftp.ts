// Put one file on a machine over SFTP (from a local path or from memory), then chmod it, bounded by a deadline.
import { performance } from 'node:perf_hooks';
import { TimeoutError } from '../errors.js';
import type { Deadline } from '../time/deadlines.js';
import { SshError, type SshClient } from './connect.js';

/** Upload `src` to `remotePath` through a new SFTP session on `conn`; TimeoutError names `what` when the deadline passes. */
export function sftpPut(
  conn: SshClient,
  src: { localPath: string } | { content: string | Buffer },
  remotePath: string,
  opts: { deadline: Deadline; mode?: number; what: string },
): Promise<void> {
  const started = performance.now();
  return new Promise<void>((resolve, reject) => {
    const { signal } = opts.deadline;
    if (signal.aborted) return reject(signal.reason);
    conn.sftp((err, sftp) => {
      if (err) return reject(new SshError(`${opts.what}: cannot open SFTP: ${err.message}`));
      let settled = false;
      const done = (e?: unknown) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        sftp.end();
        if (e === undefined) resolve();
        else reject(e);
      };
      const onAbort = () => {
        const reason: unknown = signal.reason;
        done(
          reason !== undefined && !(reason instanceof TimeoutError)
            ? reason
            : new TimeoutError(opts.what, performance.now() - started, 'deadline reached during SFTP transfer'),
        );
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const chmod = (e?: Error | null) => {
        if (e) return done(new SshError(`${opts.what}: ${e.message}`));
        if (opts.mode === undefined) return done();
        sftp.chmod(remotePath, opts.mode, (e2) =>
          done(e2 ? new SshError(`${opts.what}: chmod ${opts.mode!.toString(8)}: ${e2.message}`) : undefined),
        );
      };
      if ('localPath' in src) sftp.fastPut(src.localPath, remotePath, chmod);
      else sftp.writeFile(remotePath, src.content, chmod);
    });
  });
}
