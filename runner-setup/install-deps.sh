#!/usr/bin/env bash
# Installs the system packages perfgate needs that are missing: sysbench (the load generator),
# unzip (official MariaDB builds come as jars), apt's download tools (dpkg-deb, apt-get are
# part of every Debian/Ubuntu), and Chromium (the trend-site tests and bench/pages.mjs drive it
# headless through playwright-core). Uses sudo when not root. Safe to run repeatedly.
set -euo pipefail

need=()
command -v sysbench >/dev/null 2>&1 || need+=(sysbench)
command -v unzip >/dev/null 2>&1 || need+=(unzip)
command -v dpkg-deb >/dev/null 2>&1 || need+=(dpkg)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need+=(chromium)

if [ "${#need[@]}" -eq 0 ]; then
  echo "install-deps: sysbench $(sysbench --version | awk '{print $2}'), unzip, chromium: present"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: missing ${need[*]} and no apt-get here; install them with your package manager" >&2
  exit 1
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo); else
    echo "install-deps: need root (or sudo) to install: ${need[*]}" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${need[*]}"
"${SUDO[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${need[@]}" >/dev/null
echo "install-deps: sysbench $(sysbench --version | awk '{print $2}')"
