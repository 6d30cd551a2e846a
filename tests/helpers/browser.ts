/** Real headless Chromium for the trend-site tests (Debian `chromium` + npm playwright-core). */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

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
