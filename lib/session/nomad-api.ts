// The Nomad API of a lab: an SSH tunnel to the first server's 127.0.0.1:4646, and one client over it.
import type { HarnessConfig } from '../config/schema.js';
import type { Logger } from '../log/events.js';
import { firstOf, namedMachinesOf, type Lab, type Tunnel } from '../model/lab.js';
import { createNomad, type Nomad } from '../nomad/client.js';
import { createHttpTransport } from '../nomad/transport.js';
import type { Deadline } from '../time/deadlines.js';

/** The Nomad HTTP API inside a server (the agent also listens there; nothing is exposed outside the machine). */
export const NOMAD_HTTP = { host: '127.0.0.1', port: 4646 };

/**
 * A tunnel to the first server's API and the client over it, retrying 5xx for nomad.retry_for (a server answers
 * 500 "No cluster leader" around an election). The caller closes the tunnel.
 */
export async function openNomad(
  lab: Lab,
  d: Deadline,
  o: { config: HarnessConfig; logger: Logger },
): Promise<{ nomad: Nomad; tunnel: Tunnel; via: string }> {
  const server = firstOf(lab, 'server');
  const tunnel = await server.machine.forward(NOMAD_HTTP.host, NOMAD_HTTP.port, { deadline: d });
  const nomad = createNomad({
    transport: createHttpTransport({ addr: `http://127.0.0.1:${tunnel.localPort}` }),
    logger: o.logger,
    retry5xxMs: o.config.nomad.retryForS * 1000,
    ...(o.config.nomad.token ? { token: o.config.nomad.token } : {}),
  });
  return { nomad, tunnel, via: server.name };
}

/**
 * A tunnel to each server's own API and a client over each, by slot name: reads with `stale=true` through one of
 * them are answered from that server's state. No 5xx retries: a server that does not answer is itself evidence.
 * Each tunnel is handed to `opened` as soon as it exists, for the caller to close.
 */
export async function openServerApis(
  lab: Lab,
  d: Deadline,
  o: { config: HarnessConfig; logger: Logger; opened: (t: Tunnel) => void },
): Promise<Record<string, Nomad>> {
  const apis: Record<string, Nomad> = {};
  for (const [slot, m] of namedMachinesOf(lab, 'server')) {
    const tunnel = await m.forward(NOMAD_HTTP.host, NOMAD_HTTP.port, { deadline: d });
    o.opened(tunnel);
    apis[slot] = createNomad({
      transport: createHttpTransport({ addr: `http://127.0.0.1:${tunnel.localPort}` }),
      logger: o.logger,
      ...(o.config.nomad.token ? { token: o.config.nomad.token } : {}),
    });
  }
  return apis;
}
