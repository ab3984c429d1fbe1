// Pure: the iptables rules the CNI plugins added for Nomad's bridge network, removed at the teardown of an existing
// host. What the plugins make per alloc (seen from the real v1.6.2 plugins, test/integration/ssh-iptables.test.ts):
// bridge (ipMasq) a nat chain CNI-<hash> jumped to from POSTROUTING, portmap a nat chain CNI-DN-<hash> jumped to from
// CNI-HOSTPORT-DNAT, each jump commented `name: "nomad" id: "<alloc>"`; firewall two rules per alloc address in
// CNI-FORWARD. Removed: those rules and chains only. Kept: the plugins' shared chains (CNI-HOSTPORT-*, CNI-FORWARD,
// NOMAD-ADMIN, empty once the allocs' rules are gone, maybe there before the harness) and every other rule.
import { NOMAD_NETWORK } from '../../cni/config.js';

/** A regex (ERE) matching `a.b.c.` of every address in an IPv4 network of prefix 16 to 24. Pure. */
function thirdOctetPrefix(subnet: string): string {
  const [addr = '', bits = '24'] = subnet.split('/');
  const [a, b, c = '0'] = addr.split('.');
  const size = 2 ** (24 - Math.min(24, Math.max(16, Number(bits))));
  const base = Number(c) - (Number(c) % size);
  const thirds = Array.from({ length: size }, (_, i) => base + i).join('|');
  return `${a}\\.${b}\\.(${thirds})\\.`;
}

/** Shell (root, dash) that removes the per-alloc rules and chains of CNI network `name` on `subnet`. */
export function cniIptablesCleanupScript(name: string = NOMAD_NETWORK.name, subnet: string = NOMAD_NETWORK.subnet) {
  // Note: `iptables -S` prints the comment as "name: \"nomad\" id: \"…\""; the rule is read back with eval to keep
  // its quoting (the text is the host's own iptables output)
  const tag = `'name: \\"${name}\\"'`;
  const del = (table: string) =>
    `sed 's/^-A/-D/' | while read -r rule; do eval "iptables -t ${table} $rule" || true; done`;
  return [
    'if command -v iptables >/dev/null 2>&1; then',
    `  chains=$(iptables -t nat -S | grep -F ${tag} | grep -oE -- '-j CNI-(DN-)?[0-9a-f]{16,}' | cut -c4- | sort -u)`,
    `  iptables -t nat -S | grep -F ${tag} | grep -E '^-A (POSTROUTING|CNI-HOSTPORT-DNAT) ' | ${del('nat')}`,
    '  for c in $chains; do iptables -t nat -F "$c" && iptables -t nat -X "$c" || true; done',
    `  iptables -t filter -S CNI-FORWARD 2>/dev/null | grep -E '^-A CNI-FORWARD -[sd] ${thirdOctetPrefix(subnet)}` +
      `[0-9]+/32 ' | ${del('filter')}`,
    'fi',
  ].join('\n');
}
