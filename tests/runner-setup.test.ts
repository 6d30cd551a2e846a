/**
 * runner-setup/: the scripts run for real against fake host trees (PERFGATE_HOST_ROOT), as root
 * would run them on a benchmark host. tune-host.sh: --dry-run lists each sysfs/procfs write and
 * changes nothing, apply is idempotent, --verify tells, --uninstall restores the saved values.
 * install-runner.sh: the tarball is refused on a checksum mismatch and installed when it matches
 * (a local file as the mirror), with the systemd unit written. jit-runner.sh: the service's cycle
 * against the local GitHub stand-in (requests checked against GitHub's OpenAPI description): a fresh
 * JIT config per job, the loop survives a job that exits non-zero, and the reset between jobs
 * removes what a job left and refuses a tampered cached server.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unpackOnce } from "../src/servers/cache.js";
import { ROOT } from "./helpers/env.js";
import { type GitHubStandIn, startGitHubStandIn } from "./helpers/github-standin.js";

const SETUP = join(ROOT, "runner-setup");
const tmp = mkdtempSync(join(tmpdir(), "perfgate-runner-setup-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function tree(name: string, files: Record<string, string>): string {
  const root = join(tmp, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/**
 * The environment a script runs with: the test's own, less PERFGATE_CACHE_DIR (the unit project
 * points it at an empty temp dir), since the scripts' default cache path is part of what is tested.
 */
function scriptEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { PERFGATE_CACHE_DIR: _cache, ...rest } = process.env;
  return { ...rest, ...env };
}

/** Runs a script without blocking the event loop (the GitHub stand-in answers from this process). */
function scriptAsync(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", [join(SETUP, name), ...args], { env: scriptEnv(env) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function script(name: string, args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync("bash", [join(SETUP, name), ...args], {
    env: scriptEnv(env),
    encoding: "utf8",
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every file under root with its content: a snapshot to compare. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, name.name);
      if (name.isDirectory()) walk(p);
      else out[p.slice(root.length)] = name.isSymbolicLink() ? "-> link" : readFileSync(p, "utf8");
    }
  };
  walk(root);
  return out;
}

const HOST = {
  "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "powersave\n",
  "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor": "powersave\n",
  "sys/devices/system/cpu/intel_pstate/no_turbo": "0\n",
  "sys/devices/system/cpu/smt/control": "on\n",
  "sys/kernel/mm/transparent_hugepage/enabled": "[always] madvise never\n",
  "sys/kernel/mm/transparent_hugepage/defrag": "always defer defer+madvise [madvise] never\n",
  "proc/sys/vm/swappiness": "60\n",
  "proc/sys/kernel/nmi_watchdog": "1\n",
  "proc/sys/kernel/perf_event_max_sample_rate": "100000\n",
  "proc/irq/24/smp_affinity_list": "0-3\n",
  "sys/block/nvme0n1/queue/scheduler": "[none] mq-deadline kyber\n",
  "sys/block/sda/queue/scheduler": "none [bfq] mq-deadline\n",
  "sys/block/loop0/queue/scheduler": "[none] mq-deadline\n",
  "lib/systemd/system/irqbalance.service": "[Unit]\n",
  "lib/systemd/system/apt-daily.timer": "[Unit]\n",
};

function hostTree(name: string): string {
  const root = tree(name, HOST);
  mkdirSync(join(root, "etc/systemd/system/multi-user.target.wants"), { recursive: true });
  mkdirSync(join(root, "etc/systemd/system/timers.target.wants"), { recursive: true });
  symlinkSync(
    "/lib/systemd/system/irqbalance.service",
    join(root, "etc/systemd/system/multi-user.target.wants/irqbalance.service"),
  );
  symlinkSync(
    "/lib/systemd/system/apt-daily.timer",
    join(root, "etc/systemd/system/timers.target.wants/apt-daily.timer"),
  );
  return root;
}

describe("tune-host.sh", () => {
  it("--dry-run lists every write and changes nothing", () => {
    const root = hostTree("tune-dry");
    const before = snapshot(root);
    const r = script("tune-host.sh", ["--dry-run", "--smt", "off", "--housekeeping", "0"], {
      PERFGATE_HOST_ROOT: root,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const unit = [
      "[Unit]",
      "Description=perfgate: tune this host for quiet benchmarks (runner-setup/tune-host.sh)",
      "After=sysinit.target",
      "",
      "[Service]",
      "Type=oneshot",
      `ExecStart=${join(SETUP, "tune-host.sh")} --smt off --housekeeping 0`,
      "RemainAfterExit=yes",
      "",
      "[Install]",
      "WantedBy=multi-user.target",
    ];
    expect(r.stdout.split("\n")).toEqual([
      "set /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor: powersave -> performance",
      "set /sys/devices/system/cpu/cpu1/cpufreq/scaling_governor: powersave -> performance",
      "set /sys/devices/system/cpu/intel_pstate/no_turbo: 0 -> 1",
      "absent /sys/devices/system/cpu/cpufreq/boost (not set)",
      "set /sys/devices/system/cpu/smt/control: on -> off",
      "set /sys/kernel/mm/transparent_hugepage/enabled: always -> never",
      "set /sys/kernel/mm/transparent_hugepage/defrag: madvise -> never",
      "set /proc/sys/vm/swappiness: 60 -> 1",
      "set /proc/sys/kernel/nmi_watchdog: 1 -> 0",
      "set /proc/sys/kernel/perf_event_max_sample_rate: 100000 -> 1",
      "set /proc/irq/24/smp_affinity_list: 0-3 -> 0",
      "unchanged /sys/block/nvme0n1/queue/scheduler: none",
      "set /sys/block/sda/queue/scheduler: bfq -> mq-deadline",
      "run systemctl disable --now irqbalance.service",
      "run systemctl disable --now apt-daily.timer",
      `write /etc/systemd/system/perfgate-tune.service (${unit.join("\n").length} bytes, mode 644)`,
      ...unit.map((l) => `    | ${l}`),
      "run systemctl enable --now perfgate-tune.service",
      "",
    ]);
    expect(snapshot(root)).toEqual(before);
  });

  it("applies once, changes nothing the second time, verifies, and uninstall restores the originals", () => {
    const root = hostTree("tune-apply");
    const env = { PERFGATE_HOST_ROOT: root };
    const before = snapshot(root);
    expect(script("tune-host.sh", ["--verify"], env).code).toBe(1);
    const first = script("tune-host.sh", ["--smt", "off"], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("set /proc/sys/vm/swappiness: 60 -> 1");
    expect(readFileSync(join(root, "proc/sys/vm/swappiness"), "utf8")).toBe("1\n");
    expect(readFileSync(join(root, "sys/kernel/mm/transparent_hugepage/enabled"), "utf8")).toBe("never\n");
    expect(existsSync(join(root, "etc/systemd/system/multi-user.target.wants/irqbalance.service"))).toBe(
      false,
    );
    const second = script("tune-host.sh", ["--smt", "off"], env);
    expect(second.stdout.split("\n").filter((l) => l && !/^(unchanged|absent) /.test(l))).toEqual([]);
    const verify = script("tune-host.sh", ["--verify", "--smt", "off"], env);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/^ok {6}\/sys\/devices\/system\/cpu\/intel_pstate\/no_turbo: 1$/m);
    expect(verify.stdout.trim().split("\n").at(-1)).toBe("tune-host: tuned");
    const un = script("tune-host.sh", ["--uninstall"], env);
    expect(un.code).toBe(0);
    expect(un.stdout).toContain("set /sys/kernel/mm/transparent_hugepage/enabled: never -> always");
    const after = snapshot(root);
    // The fake sysfs files hold the chosen value where the kernel would show the selector list.
    for (const [k, v] of Object.entries(before)) {
      if (k.includes("transparent_hugepage") || k.endsWith("/scheduler")) continue;
      expect(after[k], k).toBe(v);
    }
    expect(after["/sys/kernel/mm/transparent_hugepage/enabled"]).toBe("always\n");
    expect(after["/sys/block/sda/queue/scheduler"]).toBe("bfq\n");
    expect(existsSync(join(root, "etc/systemd/system/perfgate-tune.service"))).toBe(false);
    expect(script("tune-host.sh", ["--verify"], env).code).toBe(1);
  });

  it("refuses a bad option value with one line and exit 2", () => {
    const r = script("tune-host.sh", ["--smt", "maybe"], { PERFGATE_HOST_ROOT: join(tmp, "none") });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("tune-host: --smt maybe: accepted: off, on, keep\n");
  });
});

function fakeRunnerTarball(): { file: string; sha256: string } {
  const pkg = join(tmp, "runner-pkg");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, "run.sh"), "#!/bin/sh\necho fake runner\n");
  chmodSync(join(pkg, "run.sh"), 0o755);
  writeFileSync(join(pkg, "config.sh"), "#!/bin/sh\n");
  const file = join(tmp, "actions-runner-mirror.tar.gz");
  execFileSync("tar", ["-czf", file, "-C", pkg, "."]);
  return { file, sha256: createHash("sha256").update(readFileSync(file)).digest("hex") };
}

describe("install-runner.sh", () => {
  it("refuses a tarball whose sha256 is not the pinned one, and installs nothing", () => {
    const { file, sha256 } = fakeRunnerTarball();
    const root = tree("install-bad", { "etc/passwd": "root:x:0:0::/root:/bin/sh\n" });
    const r = script("install-runner.sh", ["--repo", "octo/perfgate"], {
      PERFGATE_HOST_ROOT: root,
      PERFGATE_RUNNER_URL: file,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `install-runner: ${file}: sha256 ${sha256} does not match the pinned 18f8f68ed1892854ff2ab1bab4fcaa2f5abeedc98093b6cb13638991725cab74 for actions/runner 2.333.1; nothing installed\n`,
    );
    expect(existsSync(join(root, "opt/actions-runner"))).toBe(false);
    expect(readdirSync(join(root, "var/cache/perfgate-runner"))).toEqual([]);
  });

  it("installs a matching tarball from a mirror, writes the service, is idempotent, and uninstalls", () => {
    const { file, sha256 } = fakeRunnerTarball();
    const root = tree("install-ok", { "etc/passwd": "root:x:0:0::/root:/bin/sh\n" });
    const env = {
      PERFGATE_HOST_ROOT: root,
      PERFGATE_RUNNER_URL: `file://${file}`,
      PERFGATE_RUNNER_VERSION: "9.9.9",
      PERFGATE_RUNNER_SHA256: sha256,
    };
    const dry = script("install-runner.sh", ["--repo", "octo/perfgate", "--dry-run"], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      `download file://${file} -> /var/cache/perfgate-runner/actions-runner-linux-x64-9.9.9.tar.gz (must have sha256 ${sha256})`,
    );
    expect(dry.stdout).toContain("write /etc/systemd/system/perfgate-runner.service (");
    expect(dry.stdout).toContain(`    | ExecStartPre=+${SETUP}/jit-runner.sh prepare`);
    expect(dry.stdout).toContain("    | Restart=always");
    expect(dry.stdout).toContain("mkdir /var/cache/perfgate/servers (mode 1777)");
    expect(readdirSync(root)).toEqual(["etc"]);

    const r = script(
      "install-runner.sh",
      ["--repo", "octo/perfgate", "--labels", "bare-metal,perfgate"],
      env,
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(readFileSync(join(root, "opt/actions-runner/run.sh"), "utf8")).toContain("fake runner");
    expect(readFileSync(join(root, "opt/actions-runner/.env"), "utf8")).toBe(
      "PERFGATE_CACHE_DIR=/var/cache/perfgate\nPERFGATE_REQUIRE_MANIFEST=1\n",
    );
    const unit = readFileSync(join(root, "etc/systemd/system/perfgate-runner.service"), "utf8");
    expect(unit).toMatch(/^User=perfgate-runner$/m);
    expect(unit).toMatch(/^ExecStart=.*\/jit-runner\.sh run$/m);
    expect(readFileSync(join(root, "etc/perfgate-runner/runner.env"), "utf8")).toContain(
      "PERFGATE_RUNNER_SCOPE=repo:octo/perfgate\n",
    );
    expect(r.stdout).toContain(
      "next: put a token that may administer the runners of octo/perfgate in /etc/perfgate-runner/token",
    );

    const again = script(
      "install-runner.sh",
      ["--repo", "octo/perfgate", "--labels", "bare-metal,perfgate"],
      env,
    );
    expect(again.stdout).toContain("unchanged /opt/actions-runner (actions/runner 9.9.9)");
    expect(again.stdout).not.toMatch(/^(wrote|downloaded|unpacked|made) /m);

    const un = script("install-runner.sh", ["--uninstall"], env);
    expect(un.code).toBe(0);
    expect(existsSync(join(root, "opt/actions-runner"))).toBe(false);
    expect(existsSync(join(root, "etc/systemd/system/perfgate-runner.service"))).toBe(false);
    expect(existsSync(join(root, "etc/perfgate-runner"))).toBe(false);
  });
});

const RUNNER_UID = 4242;
// The fake run.sh: logs the config it got, then does what a hostile job would, per job number.
const FAKE_RUN = `#!/bin/bash
set -e
root="$PERFGATE_HOST_ROOT"
n=$(( $(cat "$root/jobs.count" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$root/jobs.count"
[ "$1" = --jitconfig ] || { echo "run.sh: no --jitconfig" >&2; exit 64; }
echo "$2" >> "$root/jobs.log"
here="$(cd "$(dirname "$0")" && pwd)"
echo "job $n: from=\${here#"$root"} work=$(ls -A "$here/_work" | tr '\\n' ' ')tmp=$(ls -A "$root/tmp" | tr '\\n' ' ')" >> "$root/seen.log"
case $n in
  1)
    mkdir -p "$here/_work/perfgate/perfgate" && echo x > "$here/_work/perfgate/perfgate/file"
    echo changed > "$here/run.sh.new" && echo '{"agentName":"x"}' > "$here/.runner"
    mkdir -p "$root/tmp/pg-datadir" && chown -R ${RUNNER_UID} "$root/tmp/pg-datadir"
    mkdir -p "$root/var/cache/perfgate/servers/maven-mariadb-9.9.9/bin" && chown -R ${RUNNER_UID} "$root/var/cache/perfgate/servers/maven-mariadb-9.9.9"
    echo evil >> "$root/var/cache/perfgate/servers/maven-mariadb-1.2.3/bin/mariadbd"
    exit 0 ;;
  2) exit 1 ;;
  *) exit 0 ;;
esac
`;

async function sealedInstall(root: string, version: string): Promise<string> {
  const dir = join(root, "var/cache/perfgate/servers", `maven-mariadb-${version}`);
  await unpackOnce(dir, { spec: `maven:mariadb@${version}`, sha256: "ab".repeat(32) }, async (t) => {
    mkdirSync(join(t, "bin"));
    writeFileSync(join(t, "bin", "mariadbd"), "#!/bin/sh\n");
    chmodSync(join(t, "bin", "mariadbd"), 0o755);
  });
  return dir;
}

describe("jit-runner.sh: the ephemeral runner's cycle against the GitHub stand-in", () => {
  let gh: GitHubStandIn;
  beforeAll(async () => {
    gh = await startGitHubStandIn();
  });
  afterAll(async () => {
    await gh?.close();
  });

  function runnerRoot(name: string): string {
    const root = tree(name, {
      "etc/passwd": `root:x:0:0::/root:/bin/sh\nperfgate-runner:x:${RUNNER_UID}:${RUNNER_UID}::/home/perfgate-runner:/usr/sbin/nologin\n`,
      "etc/perfgate-runner/token": "ghp_standin_token\n",
      "opt/actions-runner/run.sh": FAKE_RUN,
      "tmp/.keep-root-owned": "",
    });
    chmodSync(join(root, "opt/actions-runner/run.sh"), 0o755);
    return root;
  }

  const env = (root: string, scope: string) => ({
    PERFGATE_HOST_ROOT: root,
    PERFGATE_RUNNER_SCOPE: scope,
    PERFGATE_RUNNER_TOKEN_FILE: join(root, "etc/perfgate-runner/token"),
    PERFGATE_RUNNER_LABELS: "bare-metal,perfgate",
    PERFGATE_RUNNER_GROUP_ID: "3",
    PERFGATE_RUNNER_NAME_PREFIX: "bench1",
    GITHUB_API_URL: gh.url,
  });

  it("gets a fresh config per job, survives a failing job, and resets the host between jobs", async () => {
    const root = runnerRoot("jit-repo");
    await sealedInstall(root, "1.2.3");
    const intact = await sealedInstall(root, "1.2.4");
    const before = gh.jitRunners.length;
    const r = await scriptAsync("jit-runner.sh", ["loop", "--jobs", "3"], env(root, "repo:octo/perfgate"));
    expect(r.stderr).not.toMatch(/error|No such/i);
    expect(r.code).toBe(0);
    // one registration per job, each config handed to exactly that job's run.sh
    const runners = gh.jitRunners.slice(before);
    expect(runners).toHaveLength(3);
    expect(new Set(runners.map((x) => x.encoded_jit_config)).size).toBe(3);
    expect(readFileSync(join(root, "jobs.log"), "utf8").trim().split("\n")).toEqual(
      runners.map((x) => x.encoded_jit_config),
    );
    for (const x of runners) {
      expect(x.name).toMatch(/^bench1-\d{8}T\d{6}-[0-9a-f]{6}$/);
      expect(x.labels).toEqual(["bare-metal", "perfgate"]);
      expect(x.runner_group_id).toBe(3);
      expect(x.scope).toBe("repo octo/perfgate");
    }
    expect(gh.invalid).toEqual([]);
    expect(gh.unmatched).toEqual([]);
    expect(gh.responseProblems).toEqual([]);
    const reqs = gh.requests.slice(-3);
    expect(reqs.map((q) => q.operationId)).toEqual(
      Array(3).fill("actions/generate-runner-jitconfig-for-repo"),
    );
    expect(reqs.every((q) => q.headers.authorization === "Bearer ghp_standin_token")).toBe(true);
    expect(r.stdout.split("\n")[0]).toMatch(/^loop: not a security boundary/);
    // the loop went on after job 2 exited 1
    expect(r.stdout).toContain("job 2: the runner exited with 1; next job");
    expect(r.stdout).toContain("job 3: the runner exited with 0; next job");
    // the reset after job 1: its work, its temp files, the server it added and the tampered server are gone
    expect(r.stdout).toContain("removed /var/lib/perfgate-runner/runner");
    expect(r.stdout).toContain("copied /opt/actions-runner -> /var/lib/perfgate-runner/runner");
    expect(r.stdout).toContain("removed /tmp/pg-datadir");
    expect(r.stdout).toContain("removed /var/cache/perfgate/servers/maven-mariadb-9.9.9");
    expect(r.stdout).toMatch(
      /^refused \/var\/cache\/perfgate\/servers\/maven-mariadb-1\.2\.3: .*bin\/mariadbd was changed since perfgate unpacked maven:mariadb@1\.2\.3/m,
    );
    expect(r.stdout).toMatch(/^verified \/var\/cache\/perfgate\/servers\/maven-mariadb-1\.2\.4$/m);
    expect(existsSync(intact)).toBe(true);
    expect(existsSync(join(root, "var/cache/perfgate/servers/maven-mariadb-1.2.3"))).toBe(false);
    // job 2 ran from a fresh copy: nothing of job 1's work, files or JIT credentials
    expect(readFileSync(join(root, "seen.log"), "utf8").split("\n")[1]).toBe(
      "job 2: from=/var/lib/perfgate-runner/runner work=tmp=.keep-root-owned ",
    );
    expect(existsSync(join(root, "var/lib/perfgate-runner/runner/.runner"))).toBe(false);
    expect(existsSync(join(root, "var/lib/perfgate-runner/runner/run.sh.new"))).toBe(false);
    expect(readFileSync(join(root, "opt/actions-runner/run.sh"), "utf8")).toBe(FAKE_RUN);
    // the config is single-use: run deleted it
    expect(existsSync(join(root, "run/perfgate-runner/jitconfig"))).toBe(false);
  });

  it("uses the organization endpoint for an org scope", async () => {
    const root = runnerRoot("jit-org");
    const r = await scriptAsync("jit-runner.sh", ["loop", "--jobs", "1"], env(root, "org:octo"));
    expect(r.code).toBe(0);
    expect(gh.requests.at(-1)?.operationId).toBe("actions/generate-runner-jitconfig-for-org");
    expect(gh.jitRunners.at(-1)?.scope).toBe("org octo");
    expect(gh.invalid).toEqual([]);
  });

  it("prepare fails with one line when the token cannot be read, and leaves no config", () => {
    const root = runnerRoot("jit-notoken");
    rmSync(join(root, "etc/perfgate-runner/token"));
    const r = script("jit-runner.sh", ["prepare"], env(root, "repo:octo/perfgate"));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `jit-config: cannot read the token file ${join(root, "etc/perfgate-runner/token")}: ENOENT\njit-runner: no JIT config (see the line above); the service retries\n`,
    );
    expect(existsSync(join(root, "run/perfgate-runner/jitconfig"))).toBe(false);
  });

  it("the reset removes the user's crontab, at jobs and files at any depth in world-writable and spool directories", () => {
    const root = runnerRoot("jit-leftovers");
    const user = (path: string, dir = false) => {
      const p = join(root, path);
      mkdirSync(dir ? p : dirname(p), { recursive: true });
      if (!dir) writeFileSync(p, "x\n");
      chownSync(p, RUNNER_UID, RUNNER_UID);
      return path;
    };
    const rootOwned = (path: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), "keep\n");
      return path;
    };
    const left = [
      user("var/spool/cron/crontabs/perfgate-runner"), // Debian's crontab, the user's own
      user("var/spool/cron/atjobs/a0000101a2b3c4"), // an at job (Debian)
      user("var/spool/cron/atspool/=101"),
      user("var/spool/at/a0000201a2b3c4"), // an at job (cronie's at)
      user("run/lock/held.lock"),
      user("dev/mqueue/pg-queue"),
      user("tmp/.X11-unix/deep/er/file"), // deep under a root-owned directory
      user("var/tmp/systemd-private-x/tmp/escaped"),
      user("dev/shm/pg/seg"),
      user("var/crash/core.1"),
    ];
    // a crontab named for the user but owned by root (cronie, SUSE) goes too
    const rootCrontab = rootOwned("var/spool/cron/perfgate-runner");
    const keep = [
      rootOwned("var/spool/cron/crontabs/root"),
      rootOwned("var/spool/cron/atjobs/.SEQ"),
      rootOwned("tmp/.X11-unix/X0"),
      rootOwned("run/lock/root.lock"),
      rootOwned("dev/mqueue/root-queue"),
    ];
    user("var/tmp/pg-dir", true);
    writeFileSync(join(root, "var/tmp/pg-dir/root-file-in-user-dir"), "x\n");

    const before = snapshot(root);
    const dry = script("jit-runner.sh", ["reset", "--dry-run"], env(root, "repo:octo/perfgate"));
    expect(dry.code).toBe(0);
    expect(snapshot(root)).toEqual(before);
    // schedules first (cron and atd start nothing new while processes are killed), then the kill
    const lines = dry.stdout.trim().split("\n");
    expect(lines.slice(0, 3)).toEqual([
      "reset: before the next job",
      "remove /var/spool/cron/crontabs/perfgate-runner",
      `remove /${rootCrontab}`,
    ]);
    expect(lines.indexOf(`run pkill -KILL -u ${RUNNER_UID}`)).toBeGreaterThan(
      lines.indexOf("remove /var/spool/at/a0000201a2b3c4"),
    );

    const r = script("jit-runner.sh", ["reset"], env(root, "repo:octo/perfgate"));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    for (const path of [...left, rootCrontab, "var/tmp/pg-dir"]) {
      expect(existsSync(join(root, path)), path).toBe(false);
      expect(r.stdout.split("\n"), path).toContain(`removed /${path}`);
    }
    for (const path of keep) expect(readFileSync(join(root, path), "utf8"), path).toBe("keep\n");
    expect(existsSync(join(root, "tmp/.X11-unix/deep"))).toBe(true); // root's directory, emptied of the user's file
    const again = script("jit-runner.sh", ["reset"], env(root, "repo:octo/perfgate"));
    expect(again.stdout).not.toMatch(/^removed /m);
  });

  it("--help says what each command does, and that loop is not a security boundary", () => {
    const help = script("jit-runner.sh", ["--help"], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("`loop` is not a security boundary");
    expect(help.stdout).toContain("/var/spool/cron");
    expect(script("jit-runner.sh", ["loop", "--help"], {}).stdout).toBe(help.stdout);
  });

  it("--dry-run of prepare lists the reset and the config request without doing them", async () => {
    const root = runnerRoot("jit-dry");
    mkdirSync(join(root, "var/lib/perfgate-runner/runner/_work/old"), { recursive: true });
    await sealedInstall(root, "1.2.5");
    const extra = join(root, "var/cache/perfgate/ccache");
    mkdirSync(extra);
    chownSync(extra, RUNNER_UID, RUNNER_UID);
    const before = snapshot(root);
    const r = script("jit-runner.sh", ["prepare", "--dry-run"], env(root, "repo:octo/perfgate"));
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")).toEqual([
      "reset: before the next job",
      `run pkill -KILL -u ${RUNNER_UID}`,
      "remove /var/lib/perfgate-runner/runner",
      "remove /var/cache/perfgate/ccache",
      "run perfgate server verify /var/cache/perfgate/servers/maven-mariadb-1.2.5",
      "copy /opt/actions-runner -> /var/lib/perfgate-runner/runner (hard links; directories owned by perfgate-runner)",
      "mkdir /run/perfgate-runner (mode 755)",
      `run node ${SETUP}/jit-config.mjs > /run/perfgate-runner/jitconfig (mode 400, owner perfgate-runner)`,
      "",
    ]);
    expect(snapshot(root)).toEqual(before);
  });
});

describe("apt calls in runner-setup/", () => {
  // A fresh host often runs unattended-upgrades at boot: an apt-get that takes dpkg's lock without
  // waiting fails at once with "Could not get lock /var/lib/dpkg/lock-frontend".
  it("wait for dpkg's lock instead of failing when another apt holds it", () => {
    const dir = join(ROOT, "runner-setup");
    const calls: string[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".sh"))) {
      const text = readFileSync(join(dir, f), "utf8");
      for (const line of text.split("\n")) {
        if (/^\s*#/.test(line) || !/apt-get\s/.test(line)) continue;
        // apt-get, then only options, then a verb that takes the lock (not "apt-get here; install" in a message)
        if (!/apt-get(\s+("\$\{APT_WAIT\[@\]\}"|-\S+))*\s+(update|install|upgrade|remove|purge)\b/.test(line))
          continue;
        calls.push(`${f}: ${line.trim()}`);
        expect(line, `${f}: ${line.trim()}`).toMatch(/apt-get "\$\{APT_WAIT\[@\]\}" /);
        expect(text, f).toMatch(/^APT_WAIT=\(-o DPkg::Lock::Timeout=\d+\)$/m);
      }
    }
    expect(calls.length).toBeGreaterThanOrEqual(5);
  });
});

describe("quickstart.sh", () => {
  /**
   * A copy of the script in a tree whose install-deps.sh, npm and bin/perfgate.mjs only log their
   * calls, in order, to steps.log; the run exits with `runExit`. node_modules is newer than the
   * lock file, so the script skips `npm ci`.
   */
  function quickstart(runExit: number) {
    const root = tree(`quickstart-${runExit}`, {
      "runner-setup/quickstart.sh": readFileSync(join(SETUP, "quickstart.sh"), "utf8"),
      "runner-setup/install-deps.sh": 'echo "install-deps $*" >> steps.log\n',
      "bin/perfgate.mjs": `import { appendFileSync } from "node:fs";\nappendFileSync("steps.log", \`perfgate \${process.argv.slice(2).join(" ")}\\n\`);\nprocess.exit(${runExit});\n`,
      "stubs/npm": '#!/bin/sh\necho "npm $*" >> steps.log\n',
      "package-lock.json": "{}",
      "node_modules/.package-lock.json": "{}",
    });
    chmodSync(join(root, "stubs/npm"), 0o755);
    utimesSync(join(root, "package-lock.json"), 1_000_000, 1_000_000);
    const r = spawnSync(
      "bash",
      [join(root, "runner-setup/quickstart.sh"), "--server", "deb:mariadb@10.11.18"],
      {
        encoding: "utf8",
        env: scriptEnv({ PATH: `${join(root, "stubs")}:${process.env.PATH}` }),
      },
    );
    const steps = existsSync(join(root, "steps.log"))
      ? readFileSync(join(root, "steps.log"), "utf8").trim().split("\n")
      : [];
    return { ...r, steps };
  }

  it("measures first, then installs what only the test suite needs, saying so", () => {
    const r = quickstart(0);
    expect(r.status, r.stderr).toBe(0);
    expect(r.steps).toEqual([
      "install-deps ",
      "npm run --silent build",
      "perfgate run --server deb:mariadb@10.11.18",
      "install-deps --for-tests",
    ]);
    expect(r.stdout).toMatch(
      /^quickstart: first measurement done; now installing what only the test suite needs \(npm test\)/m,
    );
  });

  it("a failed run exits with its status, the test tools not installed, and says how to install them", () => {
    const r = quickstart(3);
    expect(r.status).toBe(3);
    expect(r.steps.at(-1)).toBe("perfgate run --server deb:mariadb@10.11.18");
    expect(r.steps).not.toContain("install-deps --for-tests");
    expect(r.stderr.trim()).toBe(
      "quickstart: perfgate run exited with 3; the test suite's tools were not installed (bash runner-setup/install-deps.sh --for-tests installs them)",
    );
  });
});
