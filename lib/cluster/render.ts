// Pure rendering of the agent templates in vms/templates: `{{ name }}` placeholders, nothing else.
import { HarnessError, EXIT } from '../errors.js';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The placeholder names a template uses, in order of first appearance. */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/**
 * Replace every `{{ name }}` in `text` with `vars[name]`; throws naming the template and the placeholder when a
 * value is missing, and with `strict` also when a var is not used (catches typos in var names). A list renders as HCL
 * list items, each quoted: `["a", "b"]` from `[{{ name }}]`.
 */
export function renderTemplate(
  text: string,
  vars: Readonly<Record<string, string | readonly string[]>>,
  opts: { name?: string; strict?: boolean } = {},
): string {
  const { name = 'template', strict = false } = opts;
  const used = placeholdersOf(text);
  const missing = used.filter((p) => !Object.hasOwn(vars, p));
  if (missing.length > 0) {
    throw new HarnessError(
      `${name}: no value for placeholder${missing.length > 1 ? 's' : ''} ${missing.map((m) => `{{ ${m} }}`).join(', ')} (given: ${Object.keys(vars).join(', ') || 'nothing'})`,
      { exitCode: EXIT.INTERNAL },
    );
  }
  if (strict) {
    const unknown = Object.keys(vars).filter((k) => !used.includes(k));
    if (unknown.length > 0)
      throw new HarnessError(
        `${name}: unknown placeholder${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (the template uses: ${used.join(', ') || 'none'})`,
        { exitCode: EXIT.INTERNAL },
      );
  }
  for (const [k, v] of Object.entries(vars)) {
    for (const one of typeof v === 'string' ? [v] : v)
      if (/[\r\n"]/.test(one))
        throw new HarnessError(
          `${name}: value of ${k} must not contain a newline or a double quote: ${JSON.stringify(one)}`,
          { exitCode: EXIT.USAGE },
        );
  }
  const show = (v: string | readonly string[]) => (typeof v === 'string' ? v : v.map((x) => `"${x}"`).join(', '));
  const out = text.replace(PLACEHOLDER, (_m, p: string) => show(vars[p]!));
  return out;
}
