#!/usr/bin/env bash
# Installs what `build:` server specs need to compile MariaDB/MySQL from source: a compiler,
# CMake, Ninja, ccache, bison and the libraries MariaDB 10.11 links against (measured on Debian
# 12; docs/servers.md has the measured build). libfmt-dev matters: perfgate configures with
# -DWITH_LIBFMT=system, since CMake would otherwise try to download fmt. Uses sudo when not
# root. Safe to run repeatedly: installs only the packages that are missing.
set -euo pipefail

pkgs=(
  build-essential cmake ninja-build ccache bison pkg-config git
  libncurses-dev libssl-dev libaio-dev liburing-dev libpcre2-dev zlib1g-dev
  libgnutls28-dev libfmt-dev
)

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-build-deps: no apt-get here; install with your package manager: ${pkgs[*]}" >&2
  exit 1
fi

need=()
for p in "${pkgs[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || need+=("$p")
done

if [ "${#need[@]}" -eq 0 ]; then
  echo "install-build-deps: all present ($(cmake --version | head -1), ninja $(ninja --version), $(ccache --version | head -1))"
  exit 0
fi

# Another apt (unattended-upgrades on a fresh host, a parallel setup) may hold dpkg's lock: wait for
# it for up to 10 minutes instead of failing at once.
APT_WAIT=(-o DPkg::Lock::Timeout=600)
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo); else
    echo "install-build-deps: need root (or sudo) to install: ${need[*]}" >&2
    exit 1
  fi
fi

echo "install-build-deps: installing ${need[*]}"
"${SUDO[@]}" apt-get "${APT_WAIT[@]}" update -qq
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get "${APT_WAIT[@]}" install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo "install-build-deps: done ($(cmake --version | head -1), ninja $(ninja --version), $(ccache --version | head -1))"
