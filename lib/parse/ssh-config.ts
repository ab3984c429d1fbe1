// Pure parser for the OpenSSH config text `vagrant ssh-config` prints (one `Host` block per machine).
import { HarnessError } from '../errors.js';
import type { SshTarget } from '../shell/target.js';

/** Split `Key value`, `Key=value` or `Key "quoted value"` into [lower-cased key, value]. */
function splitOption(line: string): [string, string] | undefined {
  const m = /^\s*([A-Za-z][A-Za-z0-9]*)\s*(?:=\s*|\s+)(.*?)\s*$/.exec(line);
  if (!m) return undefined;
  let value = m[2] ?? '';
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
  return [m[1]!.toLowerCase(), value];
}

function excerpt(text: string): string {
  const t = text.trim();
  return JSON.stringify(t.length > 200 ? `${t.slice(0, 200)}…` : t);
}

/** Parse every `Host` block into an SshTarget; throws naming what was expected and an excerpt of what was received. */
export function parseSshConfig(text: string): SshTarget[] {
  const blocks: { host: string; opts: [string, string][] }[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const kv = splitOption(line);
    if (!kv) continue;
    if (kv[0] === 'host') blocks.push({ host: kv[1], opts: [] });
    else blocks.at(-1)?.opts.push(kv);
  }
  if (blocks.length === 0)
    throw new HarnessError(`vagrant ssh-config: expected at least one "Host <name>" block; got ${excerpt(text)}`);
  return blocks.map(({ host, opts }) => {
    const options: Record<string, string> = {};
    const identityFiles: string[] = [];
    for (const [k, v] of opts) {
      if (k === 'identityfile') identityFiles.push(v);
      else if (!(k in options)) options[k] = v; // first value wins, as in ssh
    }
    const hostName = options['hostname'];
    if (!hostName) throw new HarnessError(`vagrant ssh-config: Host ${host} has no HostName; got ${excerpt(text)}`);
    const port = Number(options['port'] ?? '22');
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new HarnessError(`vagrant ssh-config: Host ${host} has an invalid Port ${JSON.stringify(options['port'])}`);
    return {
      host,
      hostName,
      port,
      user: options['user'] ?? 'vagrant',
      identityFiles,
      strictHostKeyChecking: (options['stricthostkeychecking'] ?? 'yes').toLowerCase() !== 'no',
      options,
    };
  });
}

/** The target for machine `name`; throws if Vagrant printed no block for it. */
export function sshTargetFor(text: string, name: string): SshTarget {
  const all = parseSshConfig(text);
  const t = all.find((x) => x.host === name);
  if (!t)
    throw new HarnessError(
      `vagrant ssh-config: expected a "Host ${name}" block; got hosts ${all.map((x) => x.host).join(', ')}`,
    );
  return t;
}
