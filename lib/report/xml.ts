// Minimal XML building for the JUnit writer: an element tree, escaped attributes, CDATA text, clean characters.
import { stripVTControlCharacters } from 'node:util';

export interface XmlElement {
  name: string;
  attrs?: Record<string, string | number | undefined>;
  children?: XmlElement[];
  /** text content, written as CDATA */
  text?: string;
}

// Anything outside XML 1.0's Char production, including lone surrogates.
const INVALID_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Remove ANSI escape sequences and characters XML 1.0 cannot carry (they would make the report unparsable). */
export function cleanText(text: string): string {
  // Note: Node's own stripper takes CSI (colours, cursor moves) and OSC (titles, hyperlinks) sequences
  return stripVTControlCharacters(text).replace(INVALID_XML, '');
}

/** Clean text with the markup characters (& < > ") as entities: the part XML and HTML escaping share. */
export function escapeMarkup(value: string): string {
  return cleanText(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Escape a value for a double-quoted attribute; newlines and tabs are kept as character references. */
export function escapeAttr(value: string): string {
  return escapeMarkup(value).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

/** Wrap text in CDATA, splitting any `]]>` inside it across two sections. */
export function cdata(text: string): string {
  return `<![CDATA[${cleanText(text).replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}

/** Serialize an element tree with two-space indentation. */
export function serialize(el: XmlElement, indent = ''): string {
  const attrs = Object.entries(el.attrs ?? {})
    .filter((kv): kv is [string, string | number] => kv[1] !== undefined)
    .map(([k, v]) => ` ${k}="${escapeAttr(String(v))}"`)
    .join('');
  const kids = el.children ?? [];
  if (el.text === undefined && kids.length === 0) return `${indent}<${el.name}${attrs}/>`;
  if (kids.length === 0) return `${indent}<${el.name}${attrs}>${cdata(el.text ?? '')}</${el.name}>`;
  const inner = kids.map((k) => serialize(k, `${indent}  `)).join('\n');
  const text = el.text === undefined ? '' : `\n${indent}  ${cdata(el.text)}`;
  return `${indent}<${el.name}${attrs}>${text}\n${inner}\n${indent}</${el.name}>`;
}
