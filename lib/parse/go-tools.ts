// Pure: what gpgv's status lines, `nomad version`, `go env GOVERSION` and a go.mod say.

/** The outcome of a detached-signature check, read from gpgv's `--status-fd` lines. */
export type SignatureCheck =
  | { ok: true; primaryFingerprint: string; signingFingerprint: string }
  | { ok: false; reason: string };

/**
 * Decide from gpgv's status lines: good only with a VALIDSIG and no BADSIG/ERRSIG/EXPSIG/REVKEYSIG (gpgv itself
 * ignores key expiry, which is what a verifier of old releases wants). With `expect`, the signing key's primary
 * fingerprint must be that one.
 */
export function parseGpgvStatus(status: string, expect?: string): SignatureCheck {
  const lines = status
    .split('\n')
    .filter((l) => l.startsWith('[GNUPG:] '))
    .map((l) => l.slice(9).trim().split(' '));
  const first = (kw: string) => lines.find((l) => l[0] === kw);
  const bad = first('BADSIG');
  if (bad) return { ok: false, reason: `BAD signature (made by key ${bad[1]}): the file is not what the key signed` };
  const noKey = first('NO_PUBKEY');
  if (noKey) return { ok: false, reason: `signed by key ${noKey[1]}, which is not in the trusted key file` };
  const err = first('ERRSIG');
  if (err) {
    const why = `gpgv ERRSIG, key ${err[1]}, reason code ${err[6] ?? '?'}`;
    return { ok: false, reason: `the signature cannot be checked (${why})` };
  }
  const revoked = first('REVKEYSIG');
  if (revoked) return { ok: false, reason: `signed by key ${revoked[1]}, which is revoked` };
  const valid = first('VALIDSIG');
  if (!valid || (!first('GOODSIG') && !first('EXPKEYSIG'))) {
    const seen = lines.map((l) => l[0]).join(', ') || 'none';
    return { ok: false, reason: `gpgv reported no good signature (status: ${seen})` };
  }
  const signingFingerprint = valid[1]!.toUpperCase();
  const primaryFingerprint = (valid[10] ?? valid[1]!).toUpperCase();
  const want = expect?.replace(/\s+/g, '').toUpperCase();
  if (want && primaryFingerprint !== want) {
    return { ok: false, reason: `signed by key ${primaryFingerprint}, not the expected ${want}` };
  }
  return { ok: true, primaryFingerprint, signingFingerprint };
}

/** What `nomad version` printed. */
export interface NomadVersion {
  /** without the leading v: 1.9.3, 1.9.3+ent, 1.10.0-beta.1, 1.9.3-dev */
  version: string;
  /** the commit (with +CHANGES for a dirty tree); "" when the build printed none */
  revision: string;
  buildDate: string;
}

/**
 * Read `nomad version` output: `Nomad v1.9.3` / `BuildDate …` / `Revision …` (1.1 and later), or the older one-line
 * `Nomad v0.12.0 (594fbd…)`; anything else is not Nomad, said with an excerpt.
 */
export function parseNomadVersion(out: string): NomadVersion | { error: string } {
  const lines = out
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const m = /^Nomad v(\d+\.\d+\.\d+[0-9A-Za-z.+-]*)(?: \(([0-9a-f]{7,40}[^)]*)\))?$/.exec(lines[0] ?? '');
  if (!m) {
    const got = lines.length ? JSON.stringify(lines.slice(0, 2).join(' | ').slice(0, 120)) : 'nothing';
    return { error: `\`version\` printed ${got}, not "Nomad v<version>" as a Nomad build does` };
  }
  const field = (name: string) =>
    lines
      .find((l) => l.startsWith(`${name} `))
      ?.slice(name.length + 1)
      .trim() ?? '';
  return { version: m[1]!, revision: field('Revision') || (m[2] ?? ''), buildDate: field('BuildDate') };
}

/** A Go version as numbers: "go1.26.8" or "1.22" -> [1, 26, 8]; undefined when it is not one. */
function goVersionNumbers(v: string): number[] | undefined {
  const m = /^(?:go)?(\d+)\.(\d+)(?:\.(\d+))?(?:rc\d+|beta\d+)?$/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

/** Is Go version `have` at least `need` (both as go.mod or `go env GOVERSION` write them)? */
export function goAtLeast(have: string, need: string): boolean {
  const a = goVersionNumbers(have);
  const b = goVersionNumbers(need);
  if (!a || !b) return false;
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return true;
}

/** The module path and `go` directive of a go.mod (what a source tree is and which Go it needs). */
export function parseGoMod(text: string): { module: string; go: string | undefined } | { error: string } {
  const strip = (l: string) => l.replace(/\/\/.*$/, '').trim();
  const lines = text.split(/\r?\n/).map(strip);
  const mod = lines
    .find((l) => /^module\s/.test(l))
    ?.replace(/^module\s+/, '')
    .replace(/^"(.*)"$/, '$1');
  if (!mod) return { error: 'go.mod has no module line' };
  const go = lines.find((l) => /^go\s/.test(l))?.replace(/^go\s+/, '');
  return { module: mod, go };
}
