/** The host fingerprint stored with every run, so runs on different hardware are never compared silently. */
import { readFileSync } from "node:fs";
import { arch, cpus, hostname, release, totalmem } from "node:os";
import type { Host } from "../../results/schema.js";
import { hostGlibc } from "../../servers/sources/tarball.js";

function osName(): string {
  try {
    const text = readFileSync("/etc/os-release", "utf8");
    return /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text)?.[1] ?? "unknown";
  } catch {
    return "unknown";
  }
}

export function hostFingerprint(): Host {
  const list = cpus();
  const glibc = hostGlibc();
  return {
    hostname: hostname(),
    cpu_model: list[0]?.model.trim() ?? "unknown",
    cores: list.length,
    memory_bytes: totalmem(),
    kernel: release(),
    os: osName(),
    arch: arch(),
    ...(glibc ? { libc: `glibc ${glibc}` } : {}),
  };
}
