/**
 * The port a server listens on is picked below the kernel's range for outgoing connections, so a
 * client connection cannot take it between the pick and the server's bind.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ephemeralLow, freePort } from "../src/servers/instance.js";

describe("freePort", () => {
  it("picks free ports below the outgoing connections' range", async () => {
    const low = ephemeralLow();
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10000);
      expect(port).toBeLessThan(low);
      // and it is free: something can listen on it now
      await new Promise<void>((resolve, reject) => {
        const srv = createServer();
        srv.once("error", reject);
        srv.listen(port, "127.0.0.1", () => srv.close(() => resolve()));
      });
    }
  });

  it("reads the range's low end, and falls back to 32768 on what it cannot read", () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-port-"));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    expect(ephemeralLow(file("ok", "40000\t60999\n"))).toBe(40000);
    expect(ephemeralLow(file("bad", "lots of ports\n"))).toBe(32768);
    expect(ephemeralLow(join(dir, "missing"))).toBe(32768);
  });
});
