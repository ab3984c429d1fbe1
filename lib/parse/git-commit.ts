// What a Nomad commit says of itself, read from its subject, body and changed paths. Pure.

/** The PR a commit names: the last `(#n)` of its subject, else of a "Backport of" or similar line in its body. */
export function prOf(subject: string, body: string): string | undefined {
  const last = (s: string) => [...s.matchAll(/\(#(\d+)\)/g)].at(-1)?.[1];
  const n = last(subject) ?? last(body.split('\n').find((l) => /\(#\d+\)/.test(l)) ?? '');
  return n ? `#${n}` : undefined;
}

/** The public issues a commit's added or changed `.changelog/<n>.txt` files name: `GH-28345`. */
export function changelogIssues(files: readonly string[]): string[] {
  return files.flatMap((f) => {
    const m = /^\.changelog\/(\d+)\.txt$/.exec(f);
    return m ? [`GH-${m[1]}`] : [];
  });
}
