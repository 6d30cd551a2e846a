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
