// A local TCP listener on 127.0.0.1 whose every connection is carried through SSH (`direct-tcpip`) to host:port on the machine.
import net from 'node:net';
import type { Tunnel } from '../model/lab.js';
import type { Logger } from '../log/events.js';
import { deadlineIn, type Deadline } from '../time/deadlines.js';
import type { SshClient } from './connect.js';

/** How long one incoming socket may wait for the SSH connection (re-established after a drop). */
const SOCKET_CONNECT_MS = 20_000;

/** Listen on 127.0.0.1:0 and pipe each socket through a fresh `forwardOut`; survives reconnects because each socket asks `connection()` anew. */
export async function startForward(
  connection: (d: Deadline) => Promise<SshClient>,
  remoteHost: string,
  remotePort: number,
  { deadline, machine, logger }: { deadline: Deadline; machine: string; logger?: Logger },
): Promise<Tunnel> {
  await connection(deadline); // fail early if the machine is unreachable
  const sockets = new Set<net.Socket>();
  const server = net.createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => sock.destroy());
    connection(deadlineIn(SOCKET_CONNECT_MS))
      .then((c) =>
        c.forwardOut('127.0.0.1', sock.remotePort ?? 0, remoteHost, remotePort, (err, ch) => {
          if (err) {
            // Note: "Connection refused" is what every poll sees until the agent listens; only --verbose shows it.
            const refused = /Connection refused/i.test(err.message);
            const t = Math.round(performance.now());
            logger?.(
              refused
                ? { kind: 'ssh', t, machine, command: `forward to ${remoteHost}:${remotePort}: ${err.message}` }
                : { kind: 'warn', t, message: `tunnel ${machine} -> ${remoteHost}:${remotePort}: ${err.message}` },
            );
            sock.destroy();
            return;
          }
          if (sock.destroyed) return void ch.close();
          ch.on('error', () => sock.destroy());
          ch.on('close', () => sock.destroy());
          sock.on('close', () => ch.close());
          sock.pipe(ch).pipe(sock);
        }),
      )
      .catch((err: Error) => {
        logger?.({
          kind: 'warn',
          t: Math.round(performance.now()),
          message: `tunnel ${machine} -> ${remoteHost}:${remotePort}: ${err.message}`,
        });
        sock.destroy();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const addr = server.address() as net.AddressInfo;
  return {
    localPort: addr.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
