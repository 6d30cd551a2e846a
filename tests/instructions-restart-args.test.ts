/**
 * The mysqld arguments of a restart for instruction counting (src/measuring/instructions/collect.ts): MariaDB's
 * buffer-pool address reservation (`innodb_buffer_pool_size_max`, 8 TiB by default where the server
 * has it) is cut to the pool the server runs with, since the instrumenting tool cannot map 8 TiB; servers without
 * the variable get no such argument, which they would refuse.
 */
import { describe, expect, it } from "vitest";
import { underValgrindArgs } from "../src/measuring/instructions/collect.js";
import type { ServerInstall } from "../src/servers/install.js";

const mariadb = { flavor: "mariadb", spec: "deb:mariadb@10.11.18" } as unknown as ServerInstall;
const mysql = { flavor: "mysql", spec: "deb:mysql@9.7.4" } as unknown as ServerInstall;

describe("arguments of the restart under callgrind", () => {
  it("sets innodb_buffer_pool_size_max to the running pool where the server has the variable", () => {
    const args = underValgrindArgs(mariadb, false, {
      innodb_buffer_pool_size: "134217728",
      innodb_buffer_pool_size_max: "8796093022208",
    });
    expect(args).toContain("--innodb-buffer-pool-size-max=134217728");
    expect(args).toContain("--innodb-use-native-aio=0");
    expect(args).toContain("--skip-ssl");
  });

  it("adds nothing for a server without it (MariaDB 11.4.5, MySQL) or without a pool size it can read", () => {
    for (const install of [mariadb, mysql]) {
      const args = underValgrindArgs(install, false, { innodb_buffer_pool_size: "134217728" });
      expect(args.some((a) => a.startsWith("--innodb-buffer-pool-size-max"))).toBe(false);
    }
    const odd = underValgrindArgs(mariadb, false, {
      innodb_buffer_pool_size: "1; rm -rf /",
      innodb_buffer_pool_size_max: "8796093022208",
    });
    expect(odd.some((a) => a.startsWith("--innodb-buffer-pool-size-max"))).toBe(false);
    expect(underValgrindArgs(mysql, false)).toEqual(["--innodb-use-native-aio=0"]);
    expect(underValgrindArgs(mariadb, true)).toEqual(["--innodb-use-native-aio=0"]);
  });
});
