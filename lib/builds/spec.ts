// Pure: what a build spec names (a path, a release version, or a git source tree) and how to say it back.
import type { ConfigProblem } from '../errors.js';

/** A Nomad build as the user named it, before anything is downloaded, built or checked. */
export type BuildSpec =
  | { kind: 'path'; path: string }
  | { kind: 'release'; version: string /* '1.9.3', '1.9.3+ent', 'latest' */ }
  | { kind: 'git'; dir: string; ref?: string };

interface ParseSpecOptions {
  /** is there a file (or anything) at this path? Lets `1.9.3` name a file of that name; default: nothing exists */
  exists?: (path: string) => boolean;
  /** the home directory, to expand a leading `~/` (the shell does not expand it after `git:`) */
  home?: string;
}

/** A full release version: 1.9.3, 1.10.0-rc.1, 1.9.3+ent, 1.9.3+ent.hsm (an optional leading v is dropped). */
const RELEASE = /^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?(?:\+[0-9A-Za-z.]+)?)$/;
/** Looks like a version but is not a full one (1.9, v1): a typo more likely than a file name. */
const PARTIAL = /^v?\d+(\.\d+)?(\+[0-9A-Za-z.]+)?$/;

const FIX =
  'give a path to a linux/amd64 nomad binary, a release version (1.9.7, 1.9.7+ent, latest), ' +
  'or a source tree git:<dir>[@<ref>]';

/** Parse one build spec; `field` names where it came from (--nomad, --before, a matrix axis) for the problem. */
export function parseBuildSpec(
  text: string,
  field: string,
  opts: ParseSpecOptions = {},
): { spec: BuildSpec } | { problem: ConfigProblem } {
  const { exists = () => false, home } = opts;
  const problem = (message: string, fix = FIX) => ({ problem: { field, value: text, message, fix } });
  const raw = text.trim();
  if (raw === '') return problem('is empty');
  const expand = (p: string) => (home && (p === '~' || p.startsWith('~/')) ? home + p.slice(1) : p);
  if (raw.startsWith('git:')) {
    const rest = raw.slice('git:'.length);
    // Note: the ref follows the first '@' (refs like release/1.9.x contain '/', never a leading '@').
    const at = rest.indexOf('@');
    const dir = expand(at < 0 ? rest : rest.slice(0, at));
    const ref = at < 0 ? undefined : rest.slice(at + 1);
    if (dir === '') {
      return problem('names no directory', 'write git:<dir> or git:<dir>@<ref>, e.g. git:~/src/nomad@v1.9.7');
    }
    if (ref !== undefined && ref === '') {
      return problem('has an empty ref after "@"', `write git:${dir} for its HEAD, or git:${dir}@<tag|branch|commit>`);
    }
    if (ref !== undefined && (/\s/.test(ref) || ref.startsWith('-'))) {
      return problem(`names an invalid ref ${JSON.stringify(ref)}`, 'give a tag, branch or commit, e.g. v1.9.7');
    }
    return { spec: ref === undefined ? { kind: 'git', dir } : { kind: 'git', dir, ref } };
  }
  if (raw.startsWith('release:')) {
    const v = raw.slice('release:'.length);
    const m = RELEASE.exec(v);
    if (v === 'latest' || m) return { spec: { kind: 'release', version: v === 'latest' ? v : m![1]! } };
    return problem(
      `names no release version (${JSON.stringify(v)})`,
      'write release:<major.minor.patch>, e.g. release:1.9.7',
    );
  }
  if (raw.startsWith('path:')) {
    const p = expand(raw.slice('path:'.length));
    return p === '' ? problem('names no path') : { spec: { kind: 'path', path: p } };
  }
  const path = expand(raw);
  if (exists(path)) return { spec: { kind: 'path', path } };
  if (raw === 'latest') return { spec: { kind: 'release', version: 'latest' } };
  const m = RELEASE.exec(raw);
  if (m) return { spec: { kind: 'release', version: m[1]! } };
  if (PARTIAL.test(raw)) {
    return problem(
      'looks like a release version but is not a full one, and no file has that name',
      'give major.minor.patch (e.g. 1.9.7), latest, or ./<name> for a file',
    );
  }
  return { spec: { kind: 'path', path } };
}
