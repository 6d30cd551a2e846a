// Bundles the CLI (dist/cli.mjs) and the GitHub Action entry (action/dist/index.mjs) with esbuild.
import { cpSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: false,
  legalComments: "none",
  // Some CommonJS dependencies call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __pgCreateRequire } from 'node:module'; const require = __pgCreateRequire(import.meta.url);",
  },
  logLevel: "warning",
};

await build({ ...common, entryPoints: ["src/cli.ts"], outfile: "dist/cli.mjs" });
// The GitHub Action: main and post steps (action/action.yml). Committed: `npm run check:bundle`.
await build({ ...common, entryPoints: ["src/action/index.ts"], outfile: "action/dist/index.mjs" });
await build({ ...common, entryPoints: ["src/action/post.ts"], outfile: "action/dist/post.mjs" });

// The trend site's client (perfgate pages copies dist/pages): one browser bundle, uPlot included,
// and an HTML shell per page. No CDN: the site works offline.
const PAGES = {
  index: ["overview", "perfgate trends"],
  cell: ["cell", "cell"],
  run: ["run", "run"],
  matrix: ["matrix", "version matrix"],
};
await build({
  entryPoints: ["src/pages/client/app.ts"],
  outdir: "dist/pages/assets",
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  legalComments: "linked",
  logLevel: "warning",
});
for (const [file, [page, title]] of Object.entries(PAGES)) {
  writeFileSync(
    `dist/pages/${file}.html`,
    `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${title}</title>\n<link rel="stylesheet" href="assets/app.css">\n</head>\n<body data-page="${page}">\n<main><p>Loading…</p></main>\n<script src="assets/app.js"></script>\n</body>\n</html>\n`,
  );
}
// The action can write the trend site too (input pages-dir): it needs the client beside its bundle.
cpSync("dist/pages", "action/dist/pages", { recursive: true });
