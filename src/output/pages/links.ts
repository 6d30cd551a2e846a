import { GRAPH_FILE_NAME } from "../../measuring/profiles/names.js";
import { safeUrl } from "../../util/safe-url.js";

/** Commit links of a cell's points (shared by the site writer and the browser client; no Node APIs). */
export interface PointLinks {
  commit: string[];
  url: (string | null)[];
  url_prefix: string | null;
}

/** The commit link of point i: null (shown as text) unless it is an http(s) link (safe-url.ts). */
export function urlOf(s: PointLinks, i: number): string | null {
  return safeUrl(s.url_prefix !== null ? `${s.url_prefix}${s.commit[i]}` : (s.url[i] ?? null));
}

/**
 * The link of a file kept beside a run's results file (a flame graph): `name` resolved against the
 * results file's URL. Null (shown as text) unless the name is a plain graph file name
 * (src/measuring/profiles/names.ts) and both the results URL and the link are safe links (safe-url.ts).
 */
export function besideResultsUrl(resultsUrl: string | null | undefined, name: string | null): string | null {
  const base = safeUrl(resultsUrl);
  if (base === null || name === null || !GRAPH_FILE_NAME.test(name)) return null;
  try {
    return safeUrl(new URL(name, base).href);
  } catch {
    return null;
  }
}
