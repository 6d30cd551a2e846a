/** Counted nouns in messages: "1 run", "2 runs", "1 version matrix", "3 version matrices". Pure. */

/**
 * `word` for a count of 1, else `many`; by default the regular English plural: "benches",
 * "entries", "runs" (irregular ones, such as "matrices", are given as `many`).
 */
export function pluralWord(n: number, word: string, many = regularPlural(word)): string {
  return n === 1 ? word : many;
}

// By the word's last letters rather than by regular expressions: reports ask for thousands of
// plurals (a cell label's "16 threads", an inconclusive verdict's "10 pairs done").
function regularPlural(word: string): string {
  const last = word.charAt(word.length - 1);
  if (last === "s" || last === "x" || last === "z" || word.endsWith("ch") || word.endsWith("sh")) {
    return `${word}es`;
  }
  if (last === "y" && word.length >= 2 && !"aeiou".includes(word.charAt(word.length - 2))) {
    return `${word.slice(0, -1)}ies`;
  }
  return `${word}s`;
}

/** "1 run", "2 runs": the count and the word that agrees with it. */
export function plural(n: number, word: string, many?: string): string {
  return `${n} ${pluralWord(n, word, many)}`;
}

/** A dataset: "1 table × 2,000 rows", "4 tables × 100,000 rows". */
export function datasetText(tables: number, rows: number): string {
  return `${plural(tables, "table")} × ${rows.toLocaleString("en-US")} ${pluralWord(rows, "row")}`;
}
