// The remote command that lists CNI host-local state directories, and its pure parser (exact bytes via base64).
import { HarnessError } from '../errors.js';
import { quote } from '../shell/quote.js';
import type { CniStateListing } from '../model/evidence.js';
import { CNI_STATE_DIRS } from '../checks/cni-state.js';

/**
 * A POSIX sh command printing, per dir, `DIR <b64 path> <1|0>` and per regular file `FILE <b64 name> <b64 content>`.
 * Note: base64 keeps host-local's CRLF and missing trailing newline exact.
 */
export function cniListingCommand(dirs: readonly string[] = CNI_STATE_DIRS): string {
  const script = [
    'for d in "$@"; do',
    '  p=$(printf %s "$d" | base64 -w0)',
    '  if [ -d "$d" ]; then echo "DIR $p 1"; else echo "DIR $p 0"; continue; fi',
    '  for f in "$d"/* "$d"/.[!.]*; do',
    '    [ -f "$f" ] || continue',
    '    echo "FILE $(basename "$f" | tr -d "\\n" | base64 -w0) $(base64 -w0 < "$f")"',
    '  done',
    'done',
  ].join('\n');
  return `sh -c ${quote(script)} sh ${dirs.map(quote).join(' ')}`;
}

const B64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decode(field: string, lineNo: number, line: string): string {
  if (!B64.test(field)) throw parseError(lineNo, line, 'a base64 field');
  return Buffer.from(field, 'base64').toString('utf8');
}

function parseError(lineNo: number, line: string, expected: string): HarnessError {
  return new HarnessError(
    `CNI state listing, line ${lineNo}: expected ${expected}, got ${JSON.stringify(line.slice(0, 120))}`,
  );
}

/** Parse the output of cniListingCommand into one CniStateListing per directory; throws on malformed lines. */
export function parseCniListing(text: string): CniStateListing[] {
  const out: CniStateListing[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    const f = line.split(' ');
    if (f[0] === 'DIR' && f.length === 3 && (f[2] === '0' || f[2] === '1')) {
      out.push({ dir: decode(f[1]!, i + 1, line), exists: f[2] === '1', files: {} });
    } else if (f[0] === 'FILE' && (f.length === 3 || f.length === 2)) {
      const cur = out[out.length - 1];
      if (!cur || !cur.exists) throw parseError(i + 1, line, 'a FILE line after a DIR line of an existing directory');
      cur.files[decode(f[1]!, i + 1, line)] = decode(f[2] ?? '', i + 1, line);
    } else {
      throw parseError(i + 1, line, '"DIR <base64 path> <0|1>" or "FILE <base64 name> <base64 content>"');
    }
  });
  return out;
}

/** Human-readable rendering of listings (evidence files): one line per file, CR/LF shown as \r \n. */
export function renderCniListing(listings: readonly CniStateListing[]): string {
  return (
    listings
      .map((l) =>
        [
          `${l.dir}: ${l.exists ? `${Object.keys(l.files).length} file(s)` : 'absent'}`,
          ...Object.entries(l.files)
            .sort()
            .map(([n, c]) => `  ${n}: ${JSON.stringify(c)}`),
        ].join('\n'),
      )
      .join('\n') + '\n'
  );
}
