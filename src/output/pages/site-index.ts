/**
 * A kind's index in the trend site (data/cells.js, data/runs.js; shared by the site writer and the
 * browser client, no Node APIs): every cell or run page id with the name of its data file.
 */

/** [page id, data file name (16 hex digits)] pairs. */
export interface SiteIndex {
  ids: [string, string][];
}

const FILE_KEY = /^[0-9a-f]{16}$/;

/** The data file name the index gives for `id`; null when the id is not in it. */
export function fileOfId(index: SiteIndex | undefined, id: string): string | null {
  if (!index || !Array.isArray(index.ids)) return null;
  for (const entry of index.ids) {
    if (Array.isArray(entry) && entry[0] === id && FILE_KEY.test(String(entry[1]))) return entry[1];
  }
  return null;
}
