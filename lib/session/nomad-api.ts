// The Nomad API of a lab: an SSH tunnel to the first server's 127.0.0.1:4646, and one client over it.
import type { HarnessConfig } from '../config/schema.js';
import type { Logger } from '../log/events.js';
import { firstOf, type Lab, type Tunnel } from '../model/lab.js';
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
