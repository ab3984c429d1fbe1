// Finds command lines built by string interpolation in TypeScript source: template literals (and `+` chains and
// `[...].join(' ')`) whose text starts a command a person pastes (`reboot-harness destroy ${id}`) and that put a value
// on it without lib/shell's quoting. Read with TypeScript's own parser, so a multi-line template is one literal.
import ts from 'typescript';

/** A value put on a command line without quoting: where, the command's text, and the expression. */
export interface RawWord {
  /** `file:line` of the substitution */
  at: string;
  /** the command line as written, `${…}` for each substitution */
  line: string;
  /** the expression's source text */
  expr: string;
}

/**
 * The tools whose command lines the harness prints, each with the words that may follow it on a command line (a
 * flag, a substitution or a path also do). The words keep prose ("vagrant status failed", "virsh could not tell")
 * out: only a known subcommand starts a command.
 */
const TOOLS: Record<string, RegExp> = {
  'reboot-harness':
    /^(run|compare|bisect|matrix|list|doctor|setup|destroy|merge|build|completion|login|list-labs|help)$/,
  vagrant: /^(up|destroy|ssh|ssh-config|status|halt|reload|snapshot|box|global-status|provision|plugin)$/,
  virsh: /^(destroy|undefine|list|start|shutdown|dominfo|domstate|version|snapshot-[a-z]+|net-[a-z]+|vol-[a-z]+)$/,
  nomad: /^(job|alloc|node|agent|operator|server|status|version|var|acl|system|deployment|eval|namespace)$/,
  bash: /^(-[a-z]+|.*\.sh)$/,
  sh: /^(-[a-z]+|.*\.sh)$/,
  sudo: /^./,
  kill: /^-/,
  ip: /^(netns|link|addr|route)$/,
  systemctl: /^(start|stop|restart|status|enable|disable)$/,
  ssh: /^-/,
  node: /^(\/|\.)/,
};

/** Tools a value may directly follow (`reboot-harness ${cmd}`, `kill ${pid}`); after the others a value is prose ("node ${id} is ready"). */
const VALUE_FOLLOWS = new Set(['reboot-harness', 'bash', 'sh', 'sudo', 'kill']);

/** Words that read as prose, not as a command's argument: they end the command ("vagrant destroy left VMs of …"). */
const PROSE =
  /^(failed|exited|left|of|in|is|was|did|could|not|the|and|to|for|on|with|after|before|when|stops|lists|names|took|gave|said|returned|removes|runs|which|that)$/;

/** A substitution's marker in the flattened text. */
const MARK = (i: number) => `\u0001${i}\u0001`;
const IS_MARK = /\u0001(\d+)\u0001/;

/** Wrapped: the value went through lib/shell (`quote(x)`, `commandLine([...])`, `xs.map(quote).join(' ')`). */
function wrapped(expr: ts.Expression, source: ts.SourceFile): boolean {
  const text = expr.getText(source);
  return /^(quote|commandLine)\(/.test(text) || /\.map\(quote\)\.join\(' '\)$/.test(text);
}

/** A token that ends the command's words: prose after it (`failed:`, `(run`, `—`). */
const ENDS = (tok: string) => /[:,]$/.test(tok) || /^[(—]/.test(tok) || /[).]$/.test(tok) || tok === '-';
/** A token that separates two commands on one line. */
const SEPARATOR = (tok: string) => ['&&', '||', ';', '|'].includes(tok) || tok.endsWith(';');

/**
 * The substitutions of `text` that stand as words of a command: after a tool and its subcommand (or flag, or
 * substitution), up to the first token that reads as prose. `--resume` followed by a value counts too.
 */
function wordsOnCommands(text: string): number[] {
  const found: number[] = [];
  const tokens = text.split(/[\s`"]+/).filter(Boolean);
  let inCommand = false;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    const tool = Object.keys(TOOLS).find((t) => tok === t || tok.endsWith(`(${t}`) || tok.endsWith(`:${t}`));
    const next = tokens[i + 1];
    if (tool && next !== undefined && (TOOLS[tool]!.test(next) || (VALUE_FOLLOWS.has(tool) && IS_MARK.test(next)))) {
      inCommand = true;
      // variables set for the command: `HARNESS_NETNS=${ns} reboot-harness setup`
      for (let j = i - 1; j >= 0 && /^[A-Z][A-Z0-9_]*=/.test(tokens[j]!); j--)
        for (const m of tokens[j]!.matchAll(new RegExp(IS_MARK, 'g'))) found.push(Number(m[1]));
      continue;
    }
    if (tok === '--resume' && next !== undefined && IS_MARK.test(next)) inCommand = true;
    if (!inCommand) continue;
    if (PROSE.test(tok)) {
      inCommand = false;
      continue;
    }
    const last = ENDS(tok) || SEPARATOR(tok);
    // `failed:`, `(run`: prose starts here; `${…}:` and `${…});` are a value and then the end
    if (last && !IS_MARK.test(tok)) {
      inCommand = false;
      continue;
    }
    for (const m of tok.matchAll(new RegExp(IS_MARK, 'g'))) found.push(Number(m[1]));
    if (last) inCommand = false;
  }
  return found;
}

/** The pieces of a `+` chain, left to right. */
function plusParts(e: ts.Expression): ts.Expression[] {
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken)
    return [...plusParts(e.left), ...plusParts(e.right)];
  if (ts.isParenthesizedExpression(e)) return plusParts(e.expression);
  return [e];
}

/** Text pieces and substitutions of one string-building expression, or undefined when it builds none. */
function pieces(node: ts.Node): { texts: string[]; exprs: ts.Expression[] } | undefined {
  if (ts.isTemplateExpression(node)) {
    // Note: sh`…` quotes every value itself; a tagged template's own literal is not this node's parent's concern.
    if (ts.isTaggedTemplateExpression(node.parent)) return undefined;
    return {
      texts: [node.head.text, ...node.templateSpans.map((s) => s.literal.text)],
      exprs: node.templateSpans.map((s) => s.expression),
    };
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    // only the top of a chain
    if (ts.isBinaryExpression(node.parent) && node.parent.operatorToken.kind === ts.SyntaxKind.PlusToken)
      return undefined;
    const parts = plusParts(node);
    if (!parts.some((p) => ts.isStringLiteral(p) || ts.isNoSubstitutionTemplateLiteral(p))) return undefined;
    const texts = [''];
    const exprs: ts.Expression[] = [];
    for (const p of parts) {
      if (ts.isStringLiteral(p) || ts.isNoSubstitutionTemplateLiteral(p)) texts[texts.length - 1] += p.text;
      else if (ts.isTemplateExpression(p))
        return undefined; // the template is scanned on its own
      else {
        exprs.push(p);
        texts.push('');
      }
    }
    return { texts, exprs };
  }
  if (ts.isArrayLiteralExpression(node)) {
    // ['reboot-harness', 'destroy', id].join(' ')
    const call = node.parent?.parent;
    if (!ts.isPropertyAccessExpression(node.parent) || node.parent.name.text !== 'join') return undefined;
    if (!call || !ts.isCallExpression(call)) return undefined;
    const sep = call.arguments[0];
    if (!sep || !ts.isStringLiteral(sep) || sep.text !== ' ') return undefined;
    const texts = [''];
    const exprs: ts.Expression[] = [];
    for (const el of node.elements) {
      if (ts.isStringLiteral(el)) texts[texts.length - 1] += `${el.text} `;
      else {
        exprs.push(el as ts.Expression);
        texts.push(' ');
      }
    }
    return { texts, exprs };
  }
  return undefined;
}

/** Every value put on a command line without lib/shell's quoting in one file's source. */
export function rawWords(file: string, text: string): RawWord[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: RawWord[] = [];
  const visit = (node: ts.Node): void => {
    const p = pieces(node);
    if (p) {
      const flat = p.texts.map((t, i) => (i < p.exprs.length ? t + MARK(i) : t)).join('');
      for (const i of wordsOnCommands(flat)) {
        const expr = p.exprs[i]!;
        if (wrapped(expr, source)) continue;
        const { line } = source.getLineAndCharacterOfPosition(expr.getStart(source));
        out.push({
          at: `${file}:${line + 1}`,
          line: flat.replace(new RegExp(IS_MARK, 'g'), '${…}').slice(0, 160),
          expr: expr.getText(source),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}
