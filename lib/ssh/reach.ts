// Whether a host's SSH port accepts a TCP connection (connected and closed at once): a check of seconds before the
// work that needs the host (a build of minutes, an SSH wait of a minute).
import { connect } from 'node:net';

/** Open a TCP connection to `host:port` and close it: undefined when it was accepted, else why not. */
export type ReachProbe = (host: string, port: number, timeoutMs: number) => Promise<string | undefined>;

export const tcpReach: ReachProbe = (host, port, timeoutMs) =>
  new Promise((done) => {
    const sock = connect({ host, port });
    const end = (why: string | undefined) => {
      sock.destroy();
      done(why);
    };
    sock.setTimeout(timeoutMs, () => end(`no answer within ${timeoutMs / 1000} s`));
    sock.once('connect', () => end(undefined));
    sock.once('error', (err: NodeJS.ErrnoException) => end(err.code ?? err.message));
  });
