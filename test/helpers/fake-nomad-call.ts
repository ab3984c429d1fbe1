// The comparison files' way to ask the Nomad API stand-in and to read what it answers: one HTTP call with its status,
// headers and body (JSON when it parses, else the plain text Nomad's errors are), and the key sets and JSON types the
// comparisons hold against real captures.
import type { FakeNomad } from './fake-nomad/index.js';

export type Obj = Record<string, unknown>;

/** The keys of an object, sorted, without `drop`. */
export const keys = (o: unknown, drop: string[] = []): string[] =>
  Object.keys(o as Obj)
    .filter((k) => !drop.includes(k))
    .sort();

/** A value's JSON type: null, array, or typeof. */
export const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Got {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

/** One request to the stand-in, as a client of Nomad's API sees the reply. */
export async function call(f: FakeNomad, path: string, init?: RequestInit): Promise<Got> {
  const r = await fetch(f.addr + path, init);
  const text = await r.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* plain-text error body */
  }
  return { status: r.status, headers: r.headers, text, body };
}
