/** Counted nouns in messages: "1 run", "2 runs", "1 version matrix", "3 version matrices". Pure. */

/** `word` for a count of 1, else `many` (default: `word` + "s"). */
export function pluralWord(n: number, word: string, many = `${word}s`): string {
  return n === 1 ? word : many;
}

/** "1 run", "2 runs": the count and the word that agrees with it. */
export function plural(n: number, word: string, many?: string): string {
  return `${n} ${pluralWord(n, word, many)}`;
}
