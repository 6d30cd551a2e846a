import { safeUrl } from "../util/safe-url.js";

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
