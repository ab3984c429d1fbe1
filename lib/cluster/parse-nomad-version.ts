// Pure: what `nomad version` printed, as version + revision, or why it is not a Nomad agent build.

/** A Nomad build's identity as `nomad version` reports it. */
export interface NomadVersion {
  /** e.g. "v1.9.7" or "v1.10.0-dev" */
  version: string;
  /** the git commit, with "+CHANGES" when built from a dirty tree; "" when the build printed none */
  revision: string;
  /** "" when the build printed none */
  buildDate: string;
}

/** Longest excerpt of foreign output quoted in an error. */
const EXCERPT_CHARS = 120;

/** Parse `nomad version` output ("Nomad v1.9.7\nBuildDate …\nRevision abc+CHANGES"); an error says what came. */
export function parseNomadVersionOutput(text: string): NomadVersion | { error: string } {
  const version = /^Nomad (v\d+\.\d+\.\d+\S*)/m.exec(text)?.[1];
  if (version) {
    const revision = /^Revision (\S+)/m.exec(text)?.[1] ?? '';
    const buildDate = /^BuildDate (\S+)/m.exec(text)?.[1] ?? '';
    return { version, revision, buildDate };
  }
  const shown = text.trim().replace(/\s+/g, ' ');
  if (!shown) return { error: 'printed nothing; a Nomad agent build prints "Nomad v<version>" first' };
  const excerpt = shown.length > EXCERPT_CHARS ? `${shown.slice(0, EXCERPT_CHARS)}…` : shown;
  return { error: `printed ${JSON.stringify(excerpt)}, not "Nomad v<version>"` };
}
