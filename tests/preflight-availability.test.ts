/**
 * A server known to be missing without fetching anything (a `path:` directory that is not there)
 * fails the run before any other server is downloaded: a local HTTP server plays the MariaDB
 * mirror of the `tarball:` base and counts the requests it gets.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";

let server: Server;
let requests = 0;
let mirror = "";
const dir = mkdtempSync(join(tmpdir(), "pg-avail-"));

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  mirror = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mariadb/`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe("servers known to be missing are refused before anything is fetched", () => {
  for (const [command, args] of [
    ["ab", ["--base", "tarball:mariadb@10.11.5", "--head", "path:/nonexistent/perfgate-head"]],
    ["run", ["--server", "path:/nonexistent/perfgate-head"]],
  ] as const) {
    it(`perfgate ${command}: one line naming the spec, nothing requested or cached`, async () => {
      const cache = join(dir, `cache-${command}`);
      const before = requests;
      const r = await runCli(
        [command, ...args, "--cache-dir", cache, "--out", join(dir, `${command}.json`)],
        { PERFGATE_MIRROR_MARIADB: mirror },
      );
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr.trim().split("\n")).toEqual([
        'perfgate: server spec "path:/nonexistent/perfgate-head": /nonexistent/perfgate-head: no such directory',
      ]);
      expect(requests - before).toBe(0);
      expect(readdirSync(dir)).not.toContain(`${command}.json`);
      expect(readdirSync(dir).includes(`cache-${command}`) ? readdirSync(cache) : []).toEqual([]);
    });
  }
});
