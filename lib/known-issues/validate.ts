// Pure: the user's own known-issue table (`--known-issues-file`: an internal fork's issues, an Enterprise fix version)
// read into rows, or every problem of the file at once (field, value, fix), and merged over the shipped table.
import type { ConfigProblem } from '../errors.js';
import type { FixCommit, KnownIssue, KnownIssueConditions, LineFix } from '../model/known-issue.js';
import { REBOOT_KINDS, TASK_DRIVERS } from '../model/kinds.js';

/** What the rows are checked against: the ids of the checks and scenarios this harness has. */
interface TableContext {
  checks: readonly string[];
  scenarios: readonly string[];
}

const VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?$/;
const LINE = /^\d+\.\d+(?:\+ent)?$/;
const COMMIT = /^[0-9a-f]{7,40}$/;
const ID = /^[A-Za-z][A-Za-z0-9_.]*-\d+$/;

/**
 * The rows of a parsed table file (`{ issues: [...] }` or a bare list), or every problem in it. `file` names the
 * fields (`known-issues.yaml: issues[2].fixes[0].commit`).
 */
export function parseKnownIssues(
  raw: unknown,
  file: string,
  ctx: TableContext,
): { rows: KnownIssue[] } | { problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const problem = (field: string, value: unknown, message: string, fix: string) =>
    problems.push({ field: `${file}: ${field}`, value, message, fix });
  const list = Array.isArray(raw)
    ? raw
    : raw && typeof raw === 'object'
      ? (raw as { issues?: unknown }).issues
      : undefined;
  // Note: a key beside issues: (colour:, or extra_issues: holding rows) is told, not ignored with what it holds (Q366).
  // Its name is the value shown, never what it holds: a credentials file given by mistake shows no secret (Q187).
  if (raw && typeof raw === 'object' && !Array.isArray(raw))
    for (const k of Object.keys(raw))
      if (k !== 'issues') problem(k, k, 'is not a key of a known-issue file', 'use issues: (docs/known-issues.md)');
  if (!Array.isArray(list)) {
    problem(
      'issues',
      raw,
      'must be a list of issues',
      'write `issues:` with one entry per issue (docs/known-issues.md)',
    );
    return { problems };
  }
  const rows: KnownIssue[] = [];
  const seen = new Set<string>();
  for (const [i, item] of list.entries()) {
    const at = `issues[${i}]`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      problem(at, item, 'must be a mapping', 'give id, title, checks, fixes or lines, and source');
      continue;
    }
    const r = item as Record<string, unknown>;
    const known = [
      'id',
      'title',
      'url',
      'checks',
      'conditions',
      'signature',
      'reproduces',
      'fixes',
      'lines',
      'since_release',
      'source',
    ];
    for (const k of Object.keys(r))
      if (!known.includes(k))
        problem(`${at}.${k}`, r[k], 'is not a field of an issue', `use only: ${known.join(', ')}`);
    const text = (k: string, fix: string): string | undefined => {
      const v = r[k];
      if (typeof v === 'string' && v.trim()) return v.trim();
      problem(`${at}.${k}`, v, 'must be a non-empty string', fix);
      return undefined;
    };
    const id = text('id', 'e.g. id: GH-28345 (or your tracker: ACME-123)');
    if (id && !ID.test(id)) problem(`${at}.id`, id, 'must be a word and a number', 'e.g. GH-28345 or ACME-123');
    if (id && seen.has(id)) problem(`${at}.id`, id, 'is given twice in this file', 'keep one row per issue');
    if (id) seen.add(id);
    const title = text('title', 'one line saying what goes wrong');
    const gh = id && /^GH-(\d+)$/.exec(id);
    let url = gh ? `https://github.com/hashicorp/nomad/issues/${gh[1]}` : undefined;
    if (r.url !== undefined) {
      url = text('url', "the issue's address, https://…");
      // Note: the address is a link on the HTML page and in CI logs: only a web address, never javascript: or a path
      if (url && !/^https?:\/\/[^\s"'<>]+$/i.test(url)) {
        problem(`${at}.url`, url, 'must be an http(s) address with no spaces or quotes', 'give url: https://…');
        url = undefined;
      }
    } else if (!url) problem(`${at}.url`, undefined, 'is needed for an id that is not GH-<n>', 'give url: https://…');
    const checks = words(r.checks, `${at}.checks`, ctx.checks, 'check', problem, true);
    const conditions = conditionsOf(r.conditions, `${at}.conditions`, ctx, problem);
    const signature = signatureOf(r.signature, `${at}.signature`, problem);
    const reproduces = r.reproduces ?? 'sometimes';
    if (reproduces !== 'always' && reproduces !== 'sometimes')
      problem(
        `${at}.reproduces`,
        reproduces,
        'must be always or sometimes',
        'always: a pass on a build without the fix is a loud finding',
      );
    const fixes = fixesOf(r.fixes, `${at}.fixes`, problem);
    const lines = linesOf(r.lines, `${at}.lines`, problem);
    let sinceRelease: string | undefined;
    if (r.since_release !== undefined) {
      if (typeof r.since_release === 'string' && VERSION.test(r.since_release)) sinceRelease = r.since_release;
      else problem(`${at}.since_release`, r.since_release, 'must be a release version', 'e.g. since_release: 1.11.0');
    }
    if (r.fixes === undefined && r.lines === undefined && r.since_release === undefined)
      problem(
        at,
        id,
        'says nowhere where it is fixed',
        'give fixes (commits), lines (first fixed release per line) or since_release',
      );
    const source = text('source', 'the CHANGELOG line or the commit that says where it is fixed');
    if (id && title && url && checks && conditions && source)
      rows.push({
        id,
        title,
        url,
        checks,
        conditions,
        ...(signature ? { signature } : {}),
        reproduces: reproduces === 'always' ? 'always' : 'sometimes',
        fixes,
        lines,
        ...(sinceRelease ? { sinceRelease } : {}),
        source: { changelog: source },
      });
  }
  return problems.length ? { problems } : { rows };
}

/** The shipped table with the user's rows: a row with a shipped id replaces it, the others are added after. */
export function mergeTables(shipped: readonly KnownIssue[], user: readonly KnownIssue[]): KnownIssue[] {
  const mine = new Map(user.map((r) => [r.id, r]));
  return [...shipped.map((r) => mine.get(r.id) ?? r), ...user.filter((r) => !shipped.some((s) => s.id === r.id))];
}

type Problem = (field: string, value: unknown, message: string, fix: string) => void;

function words(
  raw: unknown,
  at: string,
  allowed: readonly string[],
  what: string,
  problem: Problem,
  required: boolean,
): string[] | undefined {
  if (raw === undefined && !required) return undefined;
  if (!Array.isArray(raw) || !raw.length || raw.some((x) => typeof x !== 'string')) {
    problem(at, raw, `must be a non-empty list of ${what} names`, `e.g. [${allowed.slice(0, 2).join(', ')}]`);
    return undefined;
  }
  const bad = raw.filter((x) => !allowed.includes(x));
  for (const b of bad) problem(at, b, `names no ${what}`, `use one of: ${allowed.join(', ')}`);
  return bad.length ? undefined : (raw as string[]);
}

function conditionsOf(raw: unknown, at: string, ctx: TableContext, problem: Problem): KnownIssueConditions | undefined {
  if (raw === undefined) return {};
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    problem(at, raw, 'must be a mapping', 'e.g. conditions: { kinds: [agent-kill], drivers: [exec] }');
    return undefined;
  }
  const c = raw as Record<string, unknown>;
  for (const k of Object.keys(c))
    if (!['kinds', 'drivers', 'scenarios'].includes(k))
      problem(`${at}.${k}`, c[k], 'is not a condition', 'use kinds, drivers or scenarios');
  const kinds = words(c.kinds, `${at}.kinds`, REBOOT_KINDS, 'fault kind', problem, false);
  const drivers = words(c.drivers, `${at}.drivers`, TASK_DRIVERS, 'task driver', problem, false);
  const scenarios = words(c.scenarios, `${at}.scenarios`, ctx.scenarios, 'scenario', problem, false);
  return {
    ...(kinds ? { kinds: kinds as KnownIssueConditions['kinds'] } : {}),
    ...(drivers ? { drivers: drivers as KnownIssueConditions['drivers'] } : {}),
    ...(scenarios ? { scenarios } : {}),
  };
}

/** A signature: one regular expression or a non-empty list of them, each of which compiles. */
function signatureOf(raw: unknown, at: string, problem: Problem): string[] | undefined {
  if (raw === undefined) return undefined;
  const list = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(list) || !list.length) {
    problem(
      at,
      raw,
      'must be a regular expression or a non-empty list of them',
      "e.g. signature: ['assignment to entry in nil map', 'dynamicUsersHook\\)\\.Prestart']",
    );
    return undefined;
  }
  let ok = true;
  for (const [i, p] of list.entries()) {
    const field = typeof raw === 'string' ? at : `${at}[${i}]`;
    if (typeof p !== 'string' || !p.trim()) {
      problem(field, p, 'must be a non-empty regular expression', 'a text the failure\u2019s message or evidence has');
      ok = false;
      continue;
    }
    try {
      new RegExp(p);
    } catch (e) {
      problem(
        field,
        p,
        `does not compile as a regular expression (${(e as Error).message})`,
        'escape ( ) [ ] * . with a backslash to match them as text',
      );
      ok = false;
    }
  }
  return ok ? (list as string[]) : undefined;
}

function fixesOf(raw: unknown, at: string, problem: Problem): FixCommit[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problem(at, raw, 'must be a list', 'e.g. fixes: [{ branch: main, commit: 906508a67f… }]');
    return [];
  }
  const out: FixCommit[] = [];
  for (const [i, f] of raw.entries()) {
    const b = (f as { branch?: unknown })?.branch;
    const c = (f as { commit?: unknown })?.commit;
    if (typeof b !== 'string' || !b.trim())
      problem(`${at}[${i}].branch`, b, 'must name the branch the commit is on', 'e.g. branch: release/2.0.x');
    if (typeof c !== 'string' || !COMMIT.test(c))
      problem(
        `${at}[${i}].commit`,
        c,
        'must be a commit id (7 to 40 lowercase hex digits)',
        'e.g. commit: 67c53d176b3afe13e693b6f0a3acd0f3fc491d02',
      );
    if (typeof b === 'string' && b.trim() && typeof c === 'string' && COMMIT.test(c))
      out.push({ branch: b.trim(), commit: c });
  }
  return out;
}

function linesOf(raw: unknown, at: string, problem: Problem): Record<string, LineFix> {
  if (raw === undefined) return {};
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    problem(
      at,
      raw,
      'must map a release line to its first fixed release',
      "e.g. lines: { '2.0': 2.0.5, '1.11': null }",
    );
    return {};
  }
  const out: Record<string, LineFix> = {};
  for (const [line, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!LINE.test(line)) problem(`${at}.${line}`, line, 'is not a release line', "e.g. '1.11' or '1.11+ent'");
    const fixedIn = v && typeof v === 'object' ? (v as { fixed_in?: unknown }).fixed_in : v;
    const ok =
      fixedIn === null ||
      (typeof fixedIn === 'string' && VERSION.test(fixedIn) && fixedIn.startsWith(`${line.replace(/\+ent$/, '')}.`));
    if (!ok)
      problem(
        `${at}.${line}`,
        fixedIn,
        `must be the first release of ${line} with the fix, or null when none has it`,
        `e.g. '${line.replace(/\+ent$/, '')}.5' or null`,
      );
    else if (LINE.test(line)) out[line] = { fixedIn: fixedIn as string | null };
  }
  return out;
}
