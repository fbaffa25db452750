/**
 * "Did you mean …?": the candidate closest to a misspelt name (a kind, a resource), for messages that
 * name what the user probably meant. Pure; no I/O.
 */

/** Edit distance with adjacent transpositions (optimal string alignment), case-insensitive. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const rows = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[x.length]![y.length]!;
}

/**
 * The candidate `word` most likely misspells: the nearest within a quarter of its length (at least
 * one edit), ties going to the earlier candidate; `undefined` when none is that close or `word` is
 * itself a candidate.
 */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(word.length / 4));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === word) return undefined;
    const d = distance(word, candidate);
    if (d <= limit && (best === undefined || d < best.distance)) best = { candidate, distance: d };
  }
  return best?.candidate;
}
