// lab.provider ssh before anything is created: every host key readable, and the CNI plugins for the client built on
// this machine (the Go module proxy is reached from here; the hosts' namespace may have no route to it). Problems are
// config problems (exit 2) naming the field and the fix; nothing on the hosts is touched.
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { privateKeyProblem } from '../../ssh/connect.js';
import { tcpReach, type ReachProbe } from '../../ssh/reach.js';
import { EXIT, HarnessError, type ConfigProblem } from '../../errors.js';
import type { HarnessConfig } from '../../config/schema.js';
import type { RunCommand } from '../../exec/run.js';
import type { Logger } from '../../log/events.js';
import { deadlineIn } from '../../time/deadlines.js';
import { ensureCniPlugins, type CniBuildOptions } from '../../cluster/cni-build.js';
import { CNI_PLUGINS_VERSION } from '../../cluster/cni-plugins.js';
import { expandHome, sshHosts } from './ssh-lab.js';
import { runCommand, ANY_EXIT_CODE } from '../../exec/run.js';
import { IN_NETNS_ENV } from '../host/host.js';

/** A first build of the plugins from the module proxy takes a minute or two; leave room for a slow proxy. */
const CNI_BUILD_MS = 15 * 60_000;
/** How long a host's SSH port may take to accept a TCP connection before the preflight says it is not reachable. */
const REACH_MS = 10_000;

/**
 * The reach probe run inside network namespace `ns` (lab.hosts_netns, before the CLI re-runs itself there): the hosts'
 * addresses may be reachable only from there, and must never be sent to from this machine's own stack. bash's
 * /dev/tcp makes the one TCP connection; `timeout` bounds it.
 */
function netnsReach(ns: string, run: RunCommand = runCommand): ReachProbe {
  return async (host, port, timeoutMs) => {
    const secs = Math.max(1, Math.ceil(timeoutMs / 1000));
    const r = await run(
      'ip',
      ['netns', 'exec', ns, 'timeout', String(secs), 'bash', '-c', 'exec 3<>"/dev/tcp/$0/$1"', host, String(port)],
      { deadline: deadlineIn(timeoutMs + 5_000), allowedCodes: ANY_EXIT_CODE },
    );
    if (r.code === 0) return undefined;
    if (r.code === 124) return `no answer within ${secs} s (from netns ${ns})`;
    // Note: bash says e.g. "10.0.0.5: connect: Connection refused" and then the /dev/tcp line; the first says why
    const why = /connect: ([^\n]+)/.exec(r.stderr)?.[1] ?? (r.stderr.trim().split('\n')[0] || `exit ${r.code}`);
    return `${why} (from netns ${ns})`;
  };
}

/**
 * Every host whose SSH port does not accept a connection, each named with why: told before anything is built (the CNI
 * plugins take minutes) or tried (the SSH wait takes a minute). A host behind a jump host is reached through it, so
 * only the jump host could be asked: it is left to the SSH connection.
 */
async function unreachableHosts(config: HarnessConfig, probe: ReachProbe = tcpReach): Promise<string[]> {
  const hosts = sshHosts(config.lab.hosts, ['server', 'client']).filter((h) => !h.spec.jump && h.spec.address);
  const out = await Promise.all(
    hosts.map(async ({ field, spec: { address, port, user } }) => {
      const why = await probe(address!, port, REACH_MS);
      return why ? `${field}.address: ${user}@${address}:${port} is not reachable over SSH: ${why}` : undefined;
    }),
  );
  return out.filter((x): x is string => !!x);
}

/**
 * Each host key ssh could not use, as a problem naming its key (lab.hosts.clients[1].key, lab.hosts.client.key):
 * missing or unreadable, a directory, or no private key (malformed, a public key, encrypted). Read here, before any
 * build, so a wrong path is exit 2 at once and not "not reachable over SSH" a minute later.
 */
export async function hostKeyProblems(config: HarnessConfig, cwd = process.cwd()): Promise<ConfigProblem[]> {
  if (config.lab.provider !== 'ssh') return [];
  const out: ConfigProblem[] = [];
  for (const h of sshHosts(config.lab.hosts, ['server', 'client'])) {
    const key = h.spec.key;
    if (!key) continue;
    const why = await keyFileProblem(resolve(cwd, expandHome(key)));
    if (!why) continue;
    const fix = `give the path of the private key (e.g. ~/.ssh/id_ed25519, not the .pub) that logs in to the ${h.name}`;
    out.push({ field: `${h.field}.key`, value: key, message: why, fix });
  }
  return out;
}

async function keyFileProblem(path: string): Promise<string | undefined> {
  const st = await stat(path).catch((err: NodeJS.ErrnoException) => err);
  if (st instanceof Error) return `cannot be read (${(st as NodeJS.ErrnoException).code ?? st.message})`;
  if (st.isDirectory()) return 'is a directory, not a key file';
  const text = await readFile(path).catch((err: NodeJS.ErrnoException) => err);
  if (text instanceof Error) return `cannot be read (${(text as NodeJS.ErrnoException).code ?? text.message})`;
  const bad = await privateKeyProblem(text);
  return bad ? `is not a private key ssh can use: ${bad}` : undefined;
}

/** Every problem of lab.provider ssh that shows before a host is reached; [] for the other providers. */
export async function existingHostsPreflight(
  config: HarnessConfig,
  o: { logger?: Logger; run?: RunCommand; build?: Partial<CniBuildOptions>; reach?: ReachProbe } = {},
): Promise<ConfigProblem[]> {
  if (config.lab.provider !== 'ssh') return [];
  const problems = await hostKeyProblems(config);
  // Note: a host that does not answer is found in seconds; the build below takes minutes, the SSH wait one
  const ns = process.env[IN_NETNS_ENV] ? '' : config.lab.hostsNetns;
  const probe = o.reach ?? (ns ? netnsReach(ns, o.run) : tcpReach);
  const down = problems.length ? [] : await unreachableHosts(config, probe);
  if (down.length)
    throw new HarnessError(`${down.join('; ')} (nothing was built or changed)`, {
      hint: 'check the addresses and ports in lab.hosts, that sshd runs there, and lab.hosts_netns (the namespace the hosts are reached from)',
    });
  try {
    await ensureCniPlugins({
      version: CNI_PLUGINS_VERSION,
      deadline: deadlineIn(CNI_BUILD_MS),
      ...(o.logger ? { logger: o.logger } : {}),
      ...(o.run ? { run: o.run } : {}),
      ...o.build,
    });
  } catch (err) {
    if (!(err instanceof HarnessError) || err.exitCode !== EXIT.USAGE) throw err;
    const message = `needs the CNI reference plugins ${CNI_PLUGINS_VERSION} to install on the client: ${err.message}`;
    problems.push({ field: 'lab.provider', value: 'ssh', message, fix: err.hint ?? 'install Go >= 1.21' });
  }
  return problems;
}
