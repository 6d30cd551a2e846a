/** Counted nouns in messages: "1 run", "2 runs", "1 version matrix", "3 version matrices". Pure. */

/**
 * `word` for a count of 1, else `many`; by default the regular English plural: "benches",
 * "entries", "runs" (irregular ones, such as "matrices", are given as `many`).
 */
export function pluralWord(n: number, word: string, many = regularPlural(word)): string {
  return n === 1 ? word : many;
}

function regularPlural(word: string): string {
  if (/(ch|sh|s|x|z)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

/** "1 run", "2 runs": the count and the word that agrees with it. */
export function plural(n: number, word: string, many?: string): string {
  return `${n} ${pluralWord(n, word, many)}`;
}
