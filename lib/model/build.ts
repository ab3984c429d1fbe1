// The ground floor: a resolved build (a checked binary on this host) and where it came from. Imports nothing.
// lib/builds makes them; every report shows them (provenance).

/** The words every report uses for a release whose SHA256SUMS signature and zip checksum both held. */
export const VERIFIED = 'checksum and signature verified';

/** Where a resolved build came from. */
export type BuildOrigin =
  | { kind: 'release'; url: string; verified: typeof VERIFIED }
  | { kind: 'git'; dir: string; commit: string; dirty: boolean }
  | { kind: 'path'; path: string };

/** A build ready to install: path on this host, its sha256, and what `nomad version` said. */
export interface ResolvedBuild {
  /** the spec as the user gave it */
  spec: string;
  /** absolute path of the binary (in the cache for releases and source builds) */
  path: string;
  /** sha256 of the binary, hex */
  sha256: string;
  /** `nomad version`'s version without the leading v, e.g. 1.9.3 or 1.9.3+ent */
  version: string;
  /** `nomad version`'s revision, e.g. d92bf10148… (+CHANGES for a dirty tree); "" when it printed none */
  revision: string;
  origin: BuildOrigin;
}
