// Pure: which interface holds an address, from `ip -o addr show` (one line per address).

/** The interface `ip -o addr show` lists `address` on ("2: eth0    inet 10.0.0.5/24 …" -> "eth0"), or undefined. */
export function interfaceWithAddress(text: string, address: string): string | undefined {
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if ((f[2] === 'inet' || f[2] === 'inet6') && f[3]?.split('/')[0] === address) return f[1]?.split('@')[0];
  }
  return undefined;
}
