// Bundles the CLI (dist/cli.mjs) and the GitHub Action entry (action/dist/index.mjs) with esbuild.
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
await build({ ...common, entryPoints: ["src/action/main.ts"], outfile: "action/dist/index.mjs" });
await build({ ...common, entryPoints: ["src/action/post.ts"], outfile: "action/dist/post.mjs" });
