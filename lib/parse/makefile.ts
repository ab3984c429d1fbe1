// Pure: the build recipe a source tree states in its GNUmakefile: the build tags (GO_TAGS as a release build computes
// them) and the version of each generator its `deps` target installs. Read from the tree being built, because the
// recipe changes between lines (1.10 adds `hashicorpmetrics`, 1.11 moves codecgen to v2.1.5) and a recipe from
// another line compiles the wrong thing or not at all.

/** How to read the recipe: which file, variable and target, and the environment of upstream's release build. */
export interface MakefileRules {
  /** the makefile, relative to the tree */
  file: string;
  /** the variable holding the build tags */
  tagsVar: string;
  /** variables set in the environment of the release build (CI=true, GO_TAGS=release, NOMAD_NO_UI=1) */
  env: Record<string, string>;
  /** tags left out whatever the makefile says (`ui`: the web UI is not built) */
  dropTags: string[];
  /** tags the release build adds outside the variable, appended when missing */
  addTags: string[];
  /** the target whose recipe (and prerequisites' recipes) `go install`s the generators */
  toolsTarget: string;
}

/** A generator as the tree pins it: `go install <pkg>@<version>`. */
interface ToolPin {
  bin: string;
  pkg: string;
  version: string;
}

/** What a tree's makefile says about building it. */
interface TreeRecipe {
  tags: string[];
  tools: ToolPin[];
}

interface Line {
  n: number;
  text: string;
}

/** Logical lines: backslash continuations joined, each with the number of its first physical line. */
function logicalLines(text: string): Line[] {
  const out: Line[] = [];
  const raw = text.split(/\r?\n/);
  for (let i = 0; i < raw.length; i++) {
    const n = i + 1;
    let line = raw[i]!;
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < raw.length) line = `${line.slice(0, -1)} ${raw[++i]!.trim()}`;
    out.push({ n, text: line });
  }
  return out;
}

/** A make line without its comment (`#` not escaped). */
const uncomment = (s: string): string => s.replace(/(^|[^\\])#.*$/, '$1').trimEnd();

const ASSIGN = /^(?:(?:export|override)\s+)*([A-Za-z_][A-Za-z0-9_.-]*)\s*(:{1,3}=|\?=|\+=|!=|=)\s*(.*)$/;
const RULE = /^([^:=#\t][^:=#]*?)\s*::?(?!=)\s*(.*)$/;
const REF = /\$(?:\(([^()]*)\)|\{([^{}]*)\}|([A-Za-z_]))/g;

/** A variable's value as far as this reader knows it: a string, or unknown (a $(shell …), a function). */
type Value = string | typeof UNKNOWN;
const UNKNOWN = Symbol('unknown');

/** Expand `$(NAME)` references with `vars`; any function call, or a reference to an unknown value, is unknown. */
function expand(s: string, vars: Map<string, Value>): Value {
  let unknown = false;
  const out = s.replace(REF, (_m, a: string | undefined, b: string | undefined, c: string | undefined) => {
    const name = (a ?? b ?? c ?? '').trim();
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) {
      unknown = true;
      return '';
    }
    const v = vars.get(name);
    if (v === UNKNOWN) {
      unknown = true;
      return '';
    }
    return v ?? '';
  });
  return unknown ? UNKNOWN : out;
}

/** The two arguments of `ifeq`/`ifneq`: `(a,b)`, `"a" "b"` or `'a' 'b'`. */
function condArgs(s: string): [string, string] | undefined {
  const paren = /^\((.*)\)$/.exec(s.trim());
  if (paren) {
    // Note: the comma splitting the arguments is the first one outside a $(…) reference.
    let depth = 0;
    const body = paren[1]!;
    for (let i = 0; i < body.length; i++) {
      const ch = body[i];
      if (ch === '(' || ch === '{') depth++;
      else if (ch === ')' || ch === '}') depth--;
      else if (ch === ',' && depth === 0) return [body.slice(0, i).trim(), body.slice(i + 1).trim()];
    }
    return undefined;
  }
  const quoted = /^(["'])(.*?)\1\s+(["'])(.*?)\3$/.exec(s.trim());
  return quoted ? [quoted[2]!, quoted[4]!] : undefined;
}

/** true, false, or unknown (a condition on something only a shell or a function would say). */
type Truth = boolean | typeof UNKNOWN;

function evalCondition(kind: string, arg: string, vars: Map<string, Value>): Truth {
  if (kind === 'ifdef' || kind === 'ifndef') {
    const v = vars.get(arg.trim());
    const defined: Truth = v === UNKNOWN ? UNKNOWN : v !== undefined && v !== '';
    return defined === UNKNOWN ? UNKNOWN : (kind === 'ifdef') === defined;
  }
  const args = condArgs(arg);
  if (!args) return UNKNOWN;
  const a = expand(args[0], vars);
  const b = expand(args[1], vars);
  if (a === UNKNOWN || b === UNKNOWN) return UNKNOWN;
  return (kind === 'ifeq') === (a.trim() === b.trim());
}

/** One open conditional: whether its current branch is taken, and whether an earlier branch was. */
interface Cond {
  now: Truth;
  taken: Truth;
  text: string;
}

interface Rule {
  prereqs: string[];
  recipe: Line[];
}

/** The makefile read once: the tags variable as the release build ends up with it, and every rule's recipe. */
interface Reading {
  tags: string[] | undefined;
  /** the variable is assigned at the top level at all (target-specific values are not the build's) */
  assigned: boolean;
  problems: string[];
  rules: Map<string, Rule>;
}

function read(text: string, r: MakefileRules): Reading {
  const vars = new Map<string, Value>(Object.entries(r.env));
  const conds: Cond[] = [];
  const rules = new Map<string, Rule>();
  const problems: string[] = [];
  let assigned = false;
  let current: Rule[] = [];
  let inDefine = false;
  const state = (): Truth => {
    if (conds.some((c) => c.now === false)) return false;
    return conds.some((c) => c.now === UNKNOWN) ? UNKNOWN : true;
  };
  const or = (a: Truth, b: Truth): Truth =>
    a === true || b === true ? true : a === UNKNOWN || b === UNKNOWN ? UNKNOWN : false;
  const not = (a: Truth): Truth => (a === UNKNOWN ? UNKNOWN : !a);
  const and = (a: Truth, b: Truth): Truth =>
    a === false || b === false ? false : a === UNKNOWN || b === UNKNOWN ? UNKNOWN : true;
  for (const line of logicalLines(text)) {
    if (inDefine) {
      if (/^\s*endef\b/.test(line.text)) inDefine = false;
      continue;
    }
    if (line.text.startsWith('\t')) {
      if (state() !== false) for (const rule of current) rule.recipe.push({ n: line.n, text: line.text.slice(1) });
      continue;
    }
    const s = uncomment(line.text).trim();
    if (s === '') continue;
    const cond = /^(ifeq|ifneq|ifdef|ifndef)\b\s*(.*)$/.exec(s);
    if (cond) {
      const now = evalCondition(cond[1]!, cond[2]!, vars);
      conds.push({ now, taken: now, text: s });
      continue;
    }
    const els = /^else\b\s*(.*)$/.exec(s);
    if (els) {
      const c = conds.at(-1);
      if (!c) {
        problems.push(`line ${line.n}: else without if`);
        continue;
      }
      const nested = /^(ifeq|ifneq|ifdef|ifndef)\b\s*(.*)$/.exec(els[1]!);
      const next = nested ? evalCondition(nested[1]!, nested[2]!, vars) : true;
      c.now = and(not(c.taken), next);
      c.taken = or(c.taken, next);
      c.text = `else ${els[1] ?? ''} after ${c.text}`.trim();
      continue;
    }
    if (/^endif\b/.test(s)) {
      conds.pop();
      continue;
    }
    if (/^define\b/.test(s)) {
      inDefine = true;
      continue;
    }
    const active = state();
    const a = ASSIGN.exec(s);
    if (a) {
      const [, name, op, value] = a as unknown as [string, string, string, string];
      current = [];
      if (active === false) continue;
      if (name !== r.tagsVar) {
        // Note: only plain values are kept: $(shell …) and functions are what this reader does not evaluate.
        const v = op === '!=' ? UNKNOWN : expand(value, vars);
        const old = vars.get(name);
        if (active === UNKNOWN) vars.set(name, UNKNOWN);
        else if (op === '?=') {
          if (old === undefined) vars.set(name, v);
        } else if (op === '+=') vars.set(name, old === UNKNOWN || v === UNKNOWN ? UNKNOWN : `${old ?? ''} ${v}`.trim());
        else vars.set(name, v);
        continue;
      }
      assigned = true;
      const where = `line ${line.n} (${s})`;
      if (active === UNKNOWN) {
        const c = conds
          .filter((x) => x.now === UNKNOWN)
          .map((x) => x.text)
          .join('; ');
        problems.push(`${r.tagsVar} at ${where} depends on a condition this reader cannot evaluate (${c})`);
        continue;
      }
      const others = [...value.matchAll(REF)]
        .map((m) => (m[1] ?? m[2] ?? m[3] ?? '').trim())
        .filter((n) => n !== r.tagsVar && !(vars.has(n) && vars.get(n) !== UNKNOWN));
      if (op === '!=' || others.length) {
        const what = op === '!=' ? 'a shell command' : others.map((n) => `$(${n})`).join(', ');
        problems.push(`${r.tagsVar} at ${where} uses ${what}, which this reader does not evaluate`);
        continue;
      }
      const v = expand(value, vars) as string;
      const old = vars.get(r.tagsVar);
      if (op === '?=') {
        if (old === undefined) vars.set(r.tagsVar, v);
      } else if (op === '+=') vars.set(r.tagsVar, `${typeof old === 'string' ? old : ''} ${v}`.trim());
      else vars.set(r.tagsVar, v);
      continue;
    }
    const rule = RULE.exec(s);
    if (rule) {
      const rest = rule[2]!;
      // Note: `release: GO_TAGS=ui codegen_generated release` is a target-specific variable, not a rule's recipe.
      if (ASSIGN.test(rest)) {
        current = [];
        continue;
      }
      current = [];
      if (active === false) continue;
      const [prereqText, inline] = rest.split(';', 2) as [string, string | undefined];
      const prereqs = prereqText.split(/\s+/).filter((p) => p && !p.startsWith('$') && p !== '|');
      for (const target of rule[1]!.split(/\s+/).filter(Boolean)) {
        const entry = rules.get(target) ?? { prereqs: [], recipe: [] };
        entry.prereqs.push(...prereqs);
        if (inline?.trim()) entry.recipe.push({ n: line.n, text: inline.trim() });
        rules.set(target, entry);
        current.push(entry);
      }
      continue;
    }
    current = [];
  }
  const final = vars.get(r.tagsVar);
  const tags = assigned && typeof final === 'string' ? final.split(/\s+/).filter(Boolean) : undefined;
  return { tags, assigned, problems, rules };
}

/** The release build's tags: the variable as make computes it in the release environment, less `dropTags`, plus
 * `addTags`. */
function releaseTags(reading: Reading, r: MakefileRules): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of [...(reading.tags ?? []), ...r.addTags]) {
    if (!r.dropTags.includes(t) && !seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  }
  return out;
}

/** Every `go install <pkg>@<version>` (or `go get`) in `target`'s recipe and its prerequisites' (in this file). */
function installs(rules: Map<string, Rule>, target: string): { pkg: string; version: string; n: number }[] {
  const out: { pkg: string; version: string; n: number }[] = [];
  const seen = new Set<string>();
  const visit = (t: string) => {
    if (seen.has(t)) return;
    seen.add(t);
    const rule = rules.get(t);
    if (!rule) return;
    for (const line of rule.recipe) {
      // Note: before 1.1 the deps target ran `go get <pkg>@<version>` in tools/; it pins the same way.
      for (const m of line.text.matchAll(/(?:^|[\s;&|(@+-])go\s+(?:install|get)\s+((?:-\S+\s+)*)(\S+)@(\S+)/g)) {
        // Note: `(cd tools && go install x@v1);` ends the version with what closes the subshell, not with the version.
        const version = m[3]!.replace(/;+$/, '');
        out.push({ pkg: m[2]!, version: version.includes('(') ? version : version.replace(/\)+$/, ''), n: line.n });
      }
    }
    rule.prereqs.forEach(visit);
  };
  visit(target);
  return out;
}

/**
 * The recipe of a tree from its makefile's text (undefined: the tree has none): the release build's tags and, for each
 * generator named in `bins` (command names: `codecgen`), the package and version `toolsTarget` installs. Every part
 * that cannot be read is named, all together.
 */
export function readRecipe(
  text: string | undefined,
  r: MakefileRules,
  bins: readonly string[],
): { recipe: TreeRecipe } | { missing: string[] } {
  if (text === undefined) return { missing: [`it has no ${r.file}`] };
  const reading = read(text, r);
  const missing = [...reading.problems.map((p) => `its ${r.file}: ${p}`)];
  if (!reading.assigned) {
    missing.push(`its ${r.file} sets no ${r.tagsVar} (the build tags)`);
  }
  const tools: ToolPin[] = [];
  if (bins.length && !reading.rules.has(r.toolsTarget)) {
    missing.push(`its ${r.file} has no ${r.toolsTarget} target (where it installs ${bins.join(', ')})`);
  } else {
    const all = installs(reading.rules, r.toolsTarget);
    for (const bin of bins) {
      const pins = all.filter((i) => i.pkg.split('/').at(-1) === bin);
      const distinct = [...new Set(pins.map((p) => `${p.pkg}@${p.version}`))];
      const pin = pins[0];
      if (!pin) {
        const how = `go install <package>/${bin}@<version>`;
        missing.push(`its ${r.file}'s ${r.toolsTarget} target installs no ${bin} (${how})`);
      } else if (distinct.length > 1) {
        missing.push(`its ${r.file}'s ${r.toolsTarget} target installs ${bin} more than once: ${distinct.join(', ')}`);
      } else if (/\$/.test(distinct[0]!)) {
        missing.push(
          `its ${r.file}'s ${r.toolsTarget} target installs ${bin} as ${distinct[0]} (line ${pin.n}), ` +
            'through a make variable this reader does not evaluate',
        );
      } else {
        tools.push({ bin, pkg: pin.pkg, version: pin.version });
      }
    }
  }
  return missing.length ? { missing } : { recipe: { tags: releaseTags(reading, r), tools } };
}
