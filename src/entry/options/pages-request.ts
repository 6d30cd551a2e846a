/**
 * What `perfgate pages` and the action's `pages-dir` input ask the trend site for: one typed
 * request, built by both (the CLI from its flags, src/entry/cli/pages-commands.ts; the action from
 * its inputs, src/entry/action/history.ts) and validated here, and the one mapping from it onto
 * `writeSite`'s options (`siteOptions`). The runs are not part of it: each caller loads them from
 * its own store (the CLI's `--store`/`--repo`, the action's `history-store` with the token's auth),
 * and `writeSite` takes them beside the options. As with the other requests (./ab-request.ts), the
 * values arrive parsed by the shared parsers, which word the user's errors; the schema checks the
 * request as a whole, so a field a caller forgets, mistypes or invents fails here, naming it.
 */
import { z } from "zod";
import { detector } from "../../output/pages/detector.js";
import type { SiteOptions } from "../../output/pages/site.js";
import { checkedRequest } from "./request.js";

/** The folder is checked by `writeSite`, which words its error (not empty and not a site) itself. */
export const PagesRequestSchema = z.strictObject({
  /** the folder the site is written to (replaced) */
  out: z.string().min(1),
  /** version matrix: differences beyond this % are listed */
  thresholdPct: z.number().positive(),
  /** version matrix baselines (`--base-engine`); absent: each family's oldest */
  baselines: z.array(z.string()).min(1).optional(),
  /** the site's title; absent: the site's default */
  title: z.string().optional(),
});

export type PagesRequest = z.infer<typeof PagesRequestSchema>;

/** The request, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function pagesRequest(fields: PagesRequest): PagesRequest {
  return checkedRequest(PagesRequestSchema, "pages request", fields);
}

/** `writeSite`'s options for the request: the one mapping, for the CLI and the action. */
export function siteOptions(req: PagesRequest): SiteOptions {
  return {
    out: req.out,
    detect: detector,
    thresholdPct: req.thresholdPct,
    ...(req.title !== undefined ? { title: req.title } : {}),
    ...(req.baselines !== undefined ? { baselines: req.baselines } : {}),
  };
}
