// Part of the Nomad API stand-in (not Nomad): just enough HCL2 to read a jobspec's job, groups,
// tasks, drivers, ports and network mode, with `var.x` from variable defaults or the Variables string.
// Real Nomad parses the full language; this reads the subset our jobs use and rejects the rest loudly.

export type HclValue = string | number | boolean | null | HclValue[] | { [k: string]: HclValue };
export interface HclBlock {
  type: string;
  labels: string[];
  attrs: Record<string, HclValue>;
  blocks: HclBlock[];
}

type Tok = { k: 'str' | 'num' | 'id' | 'p' | 'nl'; v: string; line: number };

/** Parse HCL text into a block tree; throws Error("<line>: ...") on what it cannot read. */
export function parseHcl(src: string, vars: Record<string, HclValue> = {}, lenient = false): HclBlock {
  const toks = lex(src);
  let i = 0;
  const peek = () => toks[i];
  const next = () => toks[i++]!;
  const skipNl = () => {
    while (peek()?.k === 'nl') i++;
  };
  const fail = (msg: string): never => {
    throw new Error(`line ${peek()?.line ?? 'EOF'}: ${msg}`);
  };
  const interp = (s: string) =>
    s.replace(/\$\{\s*var\.([A-Za-z0-9_-]+)\s*\}/g, (_, n: string) =>
      n in vars ? String(vars[n]) : lenient ? '' : fail(`undefined variable var.${n}`),
    );

  function expr(): HclValue {
    const t = next();
    if (!t) return fail('expected a value');
    if (t.k === 'str') return interp(t.v);
    if (t.k === 'num') return Number(t.v);
    if (t.k === 'id') {
      if (t.v === 'true' || t.v === 'false') return t.v === 'true';
      if (t.v === 'null') return null;
      const m = /^var\.([A-Za-z0-9_-]+)$/.exec(t.v);
      if (m) return m[1]! in vars ? vars[m[1]!]! : lenient ? null : fail(`undefined variable var.${m[1]}`);
      // type names such as `string` or `list(string)` in variable blocks: keep their text
      if (peek()?.v === '(')
        for (let depth = 0; ; ) {
          const p = next();
          depth += p.v === '(' ? 1 : p.v === ')' ? -1 : 0;
          if (depth === 0) break;
        }
      return t.v;
    }
    if (t.v === '[') {
      const out: HclValue[] = [];
      for (skipNl(); peek()?.v !== ']'; skipNl()) {
        out.push(expr());
        skipNl();
        if (peek()?.v === ',') i++;
      }
      i++;
      return out;
    }
    if (t.v === '{') {
      const out: Record<string, HclValue> = {};
      for (skipNl(); peek()?.v !== '}'; skipNl()) {
        const key = next();
        if (next()?.v !== '=') fail('expected = in object');
        out[key.v] = expr();
        if (peek()?.v === ',') i++;
      }
      i++;
      return out;
    }
    return fail(`unexpected ${t.v}`);
  }

  function body(end: string | undefined): HclBlock {
    const b: HclBlock = { type: '', labels: [], attrs: {}, blocks: [] };
    for (skipNl(); peek() && peek()!.v !== end; skipNl()) {
      const name = next();
      if (name.k !== 'id') fail(`expected an attribute or block name, got ${name.v}`);
      if (peek()?.v === '=') {
        i++;
        b.attrs[name.v] = expr();
        continue;
      }
      const labels: string[] = [];
      while (peek()?.k === 'str') labels.push(interp(next().v));
      if (next()?.v !== '{') fail(`expected { after ${name.v}`);
      const child = body('}');
      i++;
      b.blocks.push({ ...child, type: name.v, labels });
    }
    if (end && !peek()) fail(`missing ${end}`);
    return b;
  }
  return body(undefined);
}

/** Parse a Variables string (var-file syntax: `name = value` lines). */
export function parseVarFile(src: string): Record<string, HclValue> {
  return parseHcl(src).attrs;
}

function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let line = 1;
  for (let i = 0; i < src.length; ) {
    const c = src[i]!;
    if (c === '\n') {
      out.push({ k: 'nl', v: '\n', line: line++ });
      i++;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '#' || src.startsWith('//', i)) {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (src.startsWith('/*', i)) {
      const e = src.indexOf('*/', i + 2);
      line += src.slice(i, e).split('\n').length - 1;
      i = e < 0 ? src.length : e + 2;
      continue;
    }
    if (c === '"') {
      let v = '';
      for (i++; i < src.length && src[i] !== '"'; i++) {
        if (src[i] === '\\') {
          i++;
          v += ({ n: '\n', t: '\t', '"': '"', '\\': '\\' } as Record<string, string>)[src[i]!] ?? src[i];
        } else if (src.startsWith('${', i)) {
          const e = src.indexOf('}', i);
          v += src.slice(i, e + 1);
          i = e;
        } else v += src[i];
      }
      i++;
      out.push({ k: 'str', v, line });
      continue;
    }
    const heredoc = /^<<-?([A-Z_]+)\n/.exec(src.slice(i));
    if (heredoc) {
      const endRe = new RegExp(`\\n\\s*${heredoc[1]}\\s*(\\n|$)`);
      const rest = src.slice(i + heredoc[0].length - 1);
      const m = endRe.exec(rest)!;
      out.push({ k: 'str', v: rest.slice(1, m.index + 1), line });
      line += rest.slice(0, m.index + m[0].length).split('\n').length - 1;
      i += heredoc[0].length - 1 + m.index + m[0].length;
      if (m[1] === '\n') out.push({ k: 'nl', v: '\n', line: line - 1 });
      continue;
    }
    const num = /^-?\d+(\.\d+)?/.exec(src.slice(i));
    if (num) {
      out.push({ k: 'num', v: num[0], line });
      i += num[0].length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_.-]*/.exec(src.slice(i));
    if (id) {
      out.push({ k: 'id', v: id[0], line });
      i += id[0].length;
      continue;
    }
    out.push({ k: 'p', v: c, line });
    i++;
  }
  return out;
}
