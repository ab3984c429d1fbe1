// A build's code identity: the sha256 of the binary with the values the linker stamps into it per commit (the commit
// id, the commit date) blanked out, so two commits whose code compiles to the same program have the same identity
// (a bisect's culprit whose binary equals its parent's did not change what runs).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** sha256 of `bytes` with every occurrence of each stamp replaced by zeros of the same length. Pure. */
export function blankedSha256(bytes: Buffer, stamps: readonly string[]): string {
  const b = Buffer.from(bytes);
  for (const s of stamps.filter((x) => x.length >= 8)) {
    const needle = Buffer.from(s, 'utf8');
    for (let i = b.indexOf(needle); i !== -1; i = b.indexOf(needle, i + needle.length)) b.fill(0, i, i + needle.length);
  }
  return createHash('sha256').update(b).digest('hex');
}

/** The identity of the binary at `path` built from a commit whose stamps are given. */
export async function codeSha256(path: string, stamps: readonly string[]): Promise<string> {
  return blankedSha256(await readFile(path), stamps);
}
