/** Real headless Chromium for the trend-site tests (Debian `chromium` + npm playwright-core). */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";

/** The Chromium binary: $PERFGATE_CHROMIUM, else `chromium` or `chromium-browser` on PATH. */
export function chromiumPath(): string {
  const candidates = [process.env.PERFGATE_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  for (const c of candidates) if (c && existsSync(c)) return c;
  try {
    return execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], {
      encoding: "utf8",
    }).trim();
  } catch {
    throw new Error(
      "Chromium is required by the trend-site tests and was not found: install it with `sudo apt-get install chromium` or `bash runner-setup/install-deps.sh` (or set PERFGATE_CHROMIUM to its path)",
    );
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ["--no-sandbox"] });
}

/**
 * Opens a page of a built trend site from disk (`path` with an optional `?query`) and waits until
 * the client says it is ready (in a window of `viewport`); collects console errors and page errors.
 */
export async function openSitePage(
  browser: Browser,
  site: string,
  path: string,
  viewport = { width: 1280, height: 900 },
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  const [file, query] = path.split("?");
  await page.goto(`${pathToFileURL(join(site, file!)).href}${query ? `?${query}` : ""}`);
  await page.waitForFunction(
    () => (globalThis as unknown as { perfgateReady?: number }).perfgateReady !== undefined,
    undefined,
    { timeout: 30_000 },
  );
  return { page, errors };
}
