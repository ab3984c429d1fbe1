// How a value that is no text is named in a message (a rejection with an object, a check message that is an
// object): by its shape, never its contents, which may hold a secret the redactor cannot recognise by pattern.

/** "an object with keys a, b", "a list of 3 items", or the value as text when it is a primitive. Pure. */
export function valueShape(v: unknown): string {
  if (Array.isArray(v)) return `a list of ${v.length} item${v.length === 1 ? '' : 's'}`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    const name = v.constructor && v.constructor !== Object ? `a ${v.constructor.name} object` : 'an object';
    if (!keys.length) return `${name} with no keys`;
    const shown = keys.slice(0, 8).join(', ');
    return `${name} with key${keys.length === 1 ? '' : 's'} ${shown}${keys.length > 8 ? `, … (${keys.length})` : ''}`;
  }
  return String(v);
}
