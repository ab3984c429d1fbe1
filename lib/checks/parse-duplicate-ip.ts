// Pure parser for the CNI host-local "duplicate allocation" error, wherever it is wrapped (task event, journal line).

interface DuplicateIpError {
  /** the address host-local refused to hand out twice */
  ip: string;
  /** the container (Nomad alloc) ID it says already holds it; may be truncated ("2976d256-...") in quoted samples */
  allocId: string;
}

/** The text every wrapping keeps (plugins: backend/allocator/allocator.go). */
const DUPLICATE_ALLOCATION = 'duplicate allocation is not allowed';

// `<IP> has been allocated to <ID>, duplicate allocation is not allowed`; IPv4 or IPv6; IDs may be quoted in escaped logs.
const PATTERN = /([0-9A-Fa-f.:]+) has been allocated to \\?"?([^\s,"\\]+)\\?"?, duplicate allocation is not allowed/;

/** Find the host-local duplicate-allocation error in a line of text and return the IP and alloc ID it names. */
export function findDuplicateIpError(text: string): DuplicateIpError | undefined {
  const m = PATTERN.exec(text);
  if (!m) return undefined;
  return { ip: m[1]!, allocId: m[2]! };
}

/** True when the text mentions the duplicate-allocation error at all (even in a shape the parser cannot split). */
export function mentionsDuplicateAllocation(text: string): boolean {
  return text.toLowerCase().includes(DUPLICATE_ALLOCATION);
}
