#!/usr/bin/env bash
# Installs the system packages perfgate needs that are missing. Uses sudo when not root. Safe to
# run repeatedly: installs only what is missing.
#
#   install-deps.sh              what `perfgate run` needs: sysbench (the load generator), unzip
#                                (maven: servers come as jars), dpkg-deb (Debian sources),
#                                patchelf (servers from Debian sid run with sid's C library),
#                                Debian's archive keyring (verifies sid's package index), and
#                                libnuma1/libaio1 (MySQL's generic Linux builds link them), and
#                                valgrind + binutils (instruction counts per transaction run the
#                                server under callgrind and check its symbols with nm), and
#                                linux-perf (`perf`: sampled profiles of the servers when a verdict
#                                changed; perfgate runs without it, saying so once)
#   install-deps.sh --for-tests  also what the test suite needs: a C toolchain, CMake, Ninja, ccache
#                                and git (the build: tests compile a tiny CMake project), iproute2
#                                (the network-namespace test), and the Docker *client* taken out of
#                                Debian's docker.io package into perfgate's tool cache (the docker:
#                                tests need the client only; no daemon is installed or started),
#                                and Chromium (the trend-site tests and bench/pages.mjs drive it
#                                headless through playwright-core), and jq (the workflow tests run
#                                the workflows' `gh ... --jq` calls against a GitHub stand-in), and
#                                act and Node 24 for the workflow tests (.ci/install-act: the first
#                                time it builds act with Go, ~8 minutes on 2 cores)
set -euo pipefail

tests=0
for arg in "$@"; do
  case $arg in
    --for-tests) tests=1 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "install-deps: unknown argument '$arg' (accepted: --for-tests, --help)" >&2; exit 2 ;;
  esac
done

# command → Debian package
need=()
want() { command -v "$1" >/dev/null 2>&1 || need+=("$2"); }
want sysbench sysbench
want unzip unzip
want dpkg-deb dpkg
want patchelf patchelf
want valgrind valgrind
want callgrind_control valgrind
want nm binutils
# Debian ships perf as linux-perf; Ubuntu as linux-tools-<its kernel>, which a cloud kernel may lack:
# there perf is left to the user (perfgate says once that profiles are off)
if ! command -v perf >/dev/null 2>&1; then
  if [ -r /etc/os-release ] && grep -q '^ID=ubuntu' /etc/os-release; then
    echo "install-deps: perf not installed; for sampled profiles install linux-tools-$(uname -r)" >&2
  else
    need+=(linux-perf)
  fi
fi
# MySQL's generic Linux builds (maven:mysql@…, tarball:mysql@…) link libnuma and libaio, as
# MySQL's install notes say; Debian's packages are fetched with their libraries instead.
have_lib() { [ -e "/lib/x86_64-linux-gnu/$1" ] || [ -e "/usr/lib/x86_64-linux-gnu/$1" ] || ldconfig -p 2>/dev/null | grep -q "$1"; }
have_lib libnuma.so.1 || need+=(libnuma1)
have_lib libaio.so.1 || need+=(libaio1)
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || need+=(debian-archive-keyring)
if [ $tests = 1 ]; then
  want git git
  want cc build-essential
  want make build-essential
  [ -f /usr/include/stdio.h ] || need+=(libc6-dev)
  want cmake cmake
  want ninja ninja-build
  want ccache ccache
  want ip iproute2
  want pgrep procps
  want jq jq
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need+=(chromium)
fi

# Another apt (unattended-upgrades on a fresh host, a parallel setup) may hold dpkg's lock: wait for
# it for up to 10 minutes instead of failing at once.
APT_WAIT=(-o DPkg::Lock::Timeout=600)
SUDO=()
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=(sudo); fi

if [ "${#need[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: missing ${need[*]} and no apt-get here; install them with your package manager" >&2
    exit 1
  fi
  if [ "$(id -u)" -ne 0 ] && [ "${#SUDO[@]}" -eq 0 ]; then
    echo "install-deps: need root (or sudo) to install: ${need[*]}" >&2
    exit 1
  fi
  echo "install-deps: installing ${need[*]}"
  "${SUDO[@]}" apt-get "${APT_WAIT[@]}" update -qq
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get "${APT_WAIT[@]}" install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ $tests = 1 ]; then
  # The Docker client alone, from Debian's docker.io package, unpacked without installing it.
  tools="${PERFGATE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/perfgate}/tools"
  if ! command -v docker >/dev/null 2>&1 && [ ! -x "$tools/docker/docker" ]; then
    echo "install-deps: fetching the Docker client (from Debian's docker.io package, client only)"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && apt-get download -qq docker.io 2>/dev/null) || {
      "${SUDO[@]}" apt-get "${APT_WAIT[@]}" update -qq && (cd "$tmp" && apt-get download -qq docker.io 2>/dev/null)
    } || { echo "install-deps: could not download Debian's docker.io package" >&2; exit 1; }
    dpkg-deb -x "$tmp"/docker.io_*.deb "$tmp/root"
    mkdir -p "$tools/docker"
    install -m 0755 "$tmp/root/usr/bin/docker" "$tools/docker/docker.tmp"
    mv "$tools/docker/docker.tmp" "$tools/docker/docker"
  fi
  # act (a real Actions engine, for the workflow tests) and Node 24 (the action's runtime), pinned
  # and cached under ~/.cache/perfgate-ci: the first time builds act with Go (fetched if needed)
  bash "$(dirname "$0")/../.ci/install-act"
fi

echo "install-deps: sysbench $(sysbench --version | awk '{print $2}'), unzip, dpkg-deb, patchelf, valgrind $(valgrind --version | sed 's/^valgrind-//')$(command -v perf >/dev/null 2>&1 && echo ", perf")$([ $tests = 1 ] && echo ", test tools (cc, cmake, ninja, ccache, git, ip, docker client, chromium, act, node 24)"): present"
