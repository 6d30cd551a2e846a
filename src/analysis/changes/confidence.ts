/**
 * A change point's confidence as text, the one wording of every command and page that shows one
 * (`perfgate changes`, `history changes`, the digest, `bisect --from-change`, the trend site's cell
 * page). No imports: the trend site's browser code uses it too.
 */

/**
 * `99.87%`; `>99.99%` for one that two decimals would round to 100% (a confidence, 1 − p, never
 * is: it only comes closer).
 */
export function fmtConfidence(confidence: number): string {
  const pct = (confidence * 100).toFixed(2);
  return Number(pct) >= 100 ? ">99.99%" : `${pct}%`;
}
