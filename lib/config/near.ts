// "Did you mean": the nearest of a set of names to a misspelt one. Pure.

/** Levenshtein distance between two words. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** The nearest option within a distance that still reads as a typo (a prefix counts as near), or undefined. */
export function closest(given: string, options: readonly string[]): string | undefined {
  // Note: a name typed in another case is near its own (`--Scenarios`, `Task-Dirs`): every name here is lower case
  const word = given.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const o of options) {
    const d = o.startsWith(word) && word.length >= 3 ? 1 : editDistance(word, o);
    if (d < bestD) [best, bestD] = [o, d];
  }
  return bestD <= Math.max(2, Math.floor(word.length / 4)) ? best : undefined;
}
