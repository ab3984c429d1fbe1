// Parse a JUnit XML document (ours, or any producer's) into element trees, keeping every element and attribute
// (Surefire's flakyError/rerunError included) so `merge` can write the suites out again unchanged. Pure.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { XmlElement } from './xml.js';

/** A parsed JUnit document: its top-level suites, in document order. */
interface JUnitDoc {
  /** the root element's name: `testsuites`, or `testsuite` for a single-suite file */
  root: 'testsuites' | 'testsuite';
  /** the root's attributes (for `testsuites`: name, tests, ...) */
  rootAttrs: Record<string, string>;
  suites: XmlElement[];
}

type JUnitParse = { ok: true; doc: JUnitDoc } | { ok: false; message: string };

type Node = Record<string, unknown>;

const PARSER = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  cdataPropName: '#cdata',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  htmlEntities: true,
});

/** The first `max` characters of a text on one line, for messages. */
function excerpt(text: string, max = 80): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The text of a preserveOrder node list: #text and #cdata pieces joined. */
function textOf(nodes: Node[]): string {
  let out = '';
  for (const n of nodes) {
    if (typeof n['#text'] === 'string') out += n['#text'];
    else if (Array.isArray(n['#cdata'])) out += textOf(n['#cdata'] as Node[]);
  }
  return out;
}

/** A preserveOrder element node as an XmlElement; whitespace between child elements is dropped. */
function toElement(node: Node): XmlElement | undefined {
  const name = Object.keys(node).find((k) => k !== ':@' && k !== '#text' && k !== '#cdata' && k !== '#comment');
  if (name === undefined) return undefined;
  const kids = (node[name] as Node[] | undefined) ?? [];
  const children = kids.map(toElement).filter((e): e is XmlElement => !!e);
  const text = textOf(kids);
  const attrs = Object.fromEntries(
    Object.entries((node[':@'] as Record<string, unknown> | undefined) ?? {}).map(([k, v]) => [k, String(v)]),
  );
  const el: XmlElement = { name, attrs };
  if (children.length) el.children = children;
  // Note: text beside child elements is kept only when it is more than indentation.
  if (children.length === 0 ? text !== '' : text.trim() !== '') el.text = children.length ? text.trim() : text;
  return el;
}

/** Parse JUnit XML text; a message naming what was expected and an excerpt of what was found otherwise. */
export function parseJUnit(text: string): JUnitParse {
  if (/<!DOCTYPE/i.test(text))
    return { ok: false, message: 'has a DOCTYPE; JUnit reports have none (entities are not expanded here)' };
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    const bad = text.split('\n')[line - 1] ?? '';
    return {
      ok: false,
      message: `is not well-formed XML at line ${line}, column ${col}: ${msg} (near "${excerpt(bad)}")`,
    };
  }
  const top = (PARSER.parse(text) as Node[]).map(toElement).filter((e): e is XmlElement => !!e);
  const root = top[0];
  if (top.length !== 1 || !root || (root.name !== 'testsuites' && root.name !== 'testsuite')) {
    const got = top.map((e) => `<${e.name}>`).join(', ') || 'no element';
    return { ok: false, message: `is not JUnit: expected one root <testsuites> or <testsuite>, got ${got}` };
  }
  const rootAttrs = Object.fromEntries(Object.entries(root.attrs ?? {}).map(([k, v]) => [k, String(v)]));
  if (root.name === 'testsuite') return { ok: true, doc: { root: 'testsuite', rootAttrs, suites: [root] } };
  const stray = (root.children ?? []).filter((c) => c.name !== 'testsuite').map((c) => `<${c.name}>`);
  if (stray.length)
    return {
      ok: false,
      message: `is not JUnit: <testsuites> may hold only <testsuite>, got ${[...new Set(stray)].join(', ')}`,
    };
  return { ok: true, doc: { root: 'testsuites', rootAttrs, suites: root.children ?? [] } };
}

/** Whether a text looks like a JUnit document (its first element is testsuites or testsuite), without parsing it. */
export function looksLikeJUnit(text: string): boolean {
  const body = text.replace(/^\uFEFF?(\s*<\?[^>]*\?>|\s*<!--[\s\S]*?-->)*\s*/, '');
  return /^<testsuites?[\s>/]/.test(body);
}
