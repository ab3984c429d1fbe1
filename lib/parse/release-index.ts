// Pure: the releases site's layout (URLs), its index.json and its SHA256SUMS files.

/** Where one version's files live under a releases base URL (https://releases.hashicorp.com or a mirror). */
export interface ReleaseFiles {
  zip: string;
  zipName: string;
  sums: string;
  sig: string;
}

/** The URLs of version `v`'s linux/amd64 zip, SHA256SUMS and its detached signature (the official layout). */
export function releaseFiles(base: string, v: string, product = 'nomad'): ReleaseFiles {
  // Note: a '+' (1.9.3+ent) is literal in a URL path; the releases site writes it unescaped.
  const dir = `${base.replace(/\/+$/, '')}/${product}/${v}`;
  const zipName = `${product}_${v}_linux_amd64.zip`;
  const sums = `${dir}/${product}_${v}_SHA256SUMS`;
  return { zip: `${dir}/${zipName}`, zipName, sums, sig: `${sums}.sig` };
}

/** The URL of the product's index.json (every published version). */
export function indexUrl(base: string, product = 'nomad'): string {
  return `${base.replace(/\/+$/, '')}/${product}/index.json`;
}

/** The version names listed in index.json (`{"name":"nomad","versions":{"1.9.3":{...}}}`), or why it is not one. */
export function parseReleaseIndex(text: string): { versions: string[] } | { error: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    const start = JSON.stringify(text.slice(0, 60));
    return { error: `index.json is not JSON (${(err as Error).message}); starts with ${start}` };
  }
  const versions = (doc as { versions?: unknown } | null)?.versions;
  if (!versions || typeof versions !== 'object' || Array.isArray(versions)) {
    return { error: 'index.json has no "versions" object (expected {"name":"nomad","versions":{"1.9.3":{...}}})' };
  }
  return { versions: Object.keys(versions) };
}

/**
 * The sha256 that a SHA256SUMS file gives for `fileName` (lines `<64 hex>  <name>`, `*<name>` in binary mode), or why
 * not: a line that matches no format is reported with its text.
 */
export function sha256For(sums: string, fileName: string): { sha256: string } | { error: string } {
  const lines = sums.split(/\r?\n/).filter((l) => l.trim() !== '');
  for (const line of lines) {
    const m = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line);
    if (!m) return { error: `SHA256SUMS line is not "<sha256>  <file>": ${JSON.stringify(line.slice(0, 100))}` };
    if (m[2] === fileName) return { sha256: m[1]!.toLowerCase() };
  }
  return { error: `SHA256SUMS lists no ${fileName} (it lists ${lines.length} files)` };
}
