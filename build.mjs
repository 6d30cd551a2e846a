// Bundles the CLI (dist/cli.mjs) and the GitHub Action entry (action/dist/index.mjs) with esbuild.
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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
  // The third-party notices (writeNotices below) are made from what each bundle includes.
  metafile: true,
  plugins: [noticesCollector()],
};

await build({ ...common, entryPoints: ["src/cli.ts"], outfile: "dist/cli.mjs" });
// The GitHub Action: main and post steps (action/action.yml). Committed: `npm run check:bundle`.
await build({ ...common, entryPoints: ["src/entry/action/index.ts"], outfile: "action/dist/index.mjs" });
await build({ ...common, entryPoints: ["src/entry/action/post.ts"], outfile: "action/dist/post.mjs" });

await buildPagesClient();
writeNotices();
// The action can write the trend site too (input pages-dir): it needs the client beside its bundle.
rmSync("action/dist/pages", { recursive: true, force: true });
cpSync("dist/pages", "action/dist/pages", { recursive: true });

/**
 * The trend site's client (perfgate pages copies dist/pages): one browser bundle per page, so only
 * the cell page carries uPlot; one stylesheet; and an HTML shell per page whose inline script
 * requests the page's data file before the bundle has even loaded. No CDN: the site works offline.
 */
async function buildPagesClient() {
  const pages = {
    index: ["overview", "perfgate trends"],
    cell: ["cell", "cell"],
    run: ["run", "run"],
    scaling: ["scaling", "thread scaling"],
    matrix: ["matrix", "version matrix"],
  };
  rmSync("dist/pages", { recursive: true, force: true });
  const browser = {
    bundle: true,
    minify: true,
    target: "es2020",
    legalComments: "none",
    logLevel: "warning",
  };
  await build({
    ...browser,
    entryPoints: [
      ...Object.values(pages).map(([page]) => ({
        in: `src/output/pages/client/entries/${page}.ts`,
        out: page,
      })),
      // the run page's interactive flame graph (d3-flame-graph), loaded only when a graph is opened
      { in: "src/output/pages/client/entries/flame.ts", out: "flame" },
      { in: "src/output/pages/client/app.css", out: "app" },
    ],
    outdir: "dist/pages/assets",
    format: "iife",
    metafile: true,
    plugins: [noticesCollector()],
  });
  const preload = await build({
    ...browser,
    entryPoints: ["src/output/pages/client/preload.ts"],
    format: "iife",
    write: false,
  });
  const inline = preload.outputFiles[0].text.trim();
  if (inline.includes("</")) throw new Error("build.mjs: the inline preloader must not contain '</'");
  for (const [file, [page, title]] of Object.entries(pages)) {
    writeFileSync(
      `dist/pages/${file}.html`,
      `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${title}</title>\n<link rel="stylesheet" href="assets/app.css">\n</head>\n<body data-page="${page}">\n<main><p>Loading…</p></main>\n<script>${inline}</script>\n<script src="assets/${page}.js"></script>\n</body>\n</html>\n`,
    );
  }
}

/** An esbuild plugin that keeps each build's metafile for writeNotices (hoisted: used above). */
function noticesCollector() {
  noticesCollector.metafiles ??= [];
  return {
    name: "perfgate-notices",
    setup(b) {
      b.onEnd((result) => {
        if (result.metafile) noticesCollector.metafiles.push(result.metafile);
      });
    },
  };
}

/**
 * Third-party licence notices for what the bundles include: every npm package esbuild took an
 * input file from, with its version, licence and licence text. One file per shipped folder:
 * dist/licenses.txt (the CLI and the site client), action/dist/licenses.txt (the action and the
 * site client it carries), dist/pages/assets/licenses.txt (travels with every generated site).
 */
function writeNotices() {
  const groups = {
    "dist/licenses.txt": ["dist/cli.mjs", "dist/pages/"],
    "action/dist/licenses.txt": ["action/dist/", "dist/pages/"],
    "dist/pages/assets/licenses.txt": ["dist/pages/"],
  };
  for (const [file, prefixes] of Object.entries(groups)) {
    const dirs = new Set();
    for (const meta of noticesCollector.metafiles) {
      for (const [out, info] of Object.entries(meta.outputs)) {
        if (!prefixes.some((p) => out.startsWith(p))) continue;
        for (const input of Object.keys(info.inputs)) {
          const dir = packageDirOf(input);
          if (dir) dirs.add(dir);
        }
      }
    }
    writeFileSync(file, noticesText([...dirs].map(packageNotice)));
  }
  // What every bundle is made of, for tests/bundle-notices.test.ts (dist/ is not committed).
  const outputs = Object.assign({}, ...noticesCollector.metafiles.map((m) => m.outputs));
  writeFileSync("dist/metafile.json", `${JSON.stringify({ outputs, groups }, null, 1)}\n`);
}

/** node_modules/@scope/name/... or node_modules/name/... (the innermost node_modules) → the package folder. */
function packageDirOf(input) {
  const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input.replaceAll("\\", "/"));
  return m ? m[1] : null;
}

function packageNotice(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const license =
    typeof pkg.license === "string"
      ? pkg.license
      : (pkg.license?.type ?? pkg.licenses?.map((l) => l.type).join(" OR ") ?? "UNKNOWN");
  const files = readdirSync(dir)
    .filter((f) => /^(licen[cs]e|copying|notice)([.-].*)?$/i.test(f))
    .sort();
  const text = files.map((f) => readFileSync(join(dir, f), "utf8").trim()).join("\n\n");
  return { name: pkg.name, version: pkg.version, license, text };
}

function noticesText(notices) {
  const unique = new Map(notices.map((n) => [`${n.name}@${n.version}`, n]));
  const sorted = [...unique.values()].sort((a, b) =>
    a.name === b.name ? (a.version < b.version ? -1 : 1) : a.name < b.name ? -1 : 1,
  );
  const head = `Third-party software bundled in this folder's files (${sorted.length} npm packages).\nperfgate itself is Apache-2.0 licensed.\n`;
  const body = sorted.map(
    (n) =>
      `${"=".repeat(78)}\n${n.name} ${n.version}\nLicense: ${n.license}\n${"-".repeat(78)}\n${n.text || `(the package ships no licence file; its package.json says ${n.license})`}\n`,
  );
  return `${head}\n${body.join("\n")}`;
}
