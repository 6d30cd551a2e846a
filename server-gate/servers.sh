#!/usr/bin/env bash
# The two servers of a server repository's pull-request gate (server-gate/perf-pr.yml): writes
# base=<server spec> and head=<server spec> to $GITHUB_OUTPUT (to stdout without it).
#
#   server-gate/servers.sh <base checkout> <base sha> <head checkout> <head sha>
#
# PERFGATE_SERVERS_FROM (a repository variable) says where they come from:
#   build (default)             built from the checkouts through perfgate's build: source when the
#                               A/B starts: CMake options from PERFGATE_CMAKE_OPTIONS, ccache in
#                               two layers (a pull request reads the trusted builds' layer and
#                               writes only its own, docs/runner-security.md, "The build cache"),
#                               and an install of the base that the runner's warm step already
#                               built is used as it is
#   path:<dir with {sha}>       an install the project's own CI left on the runner, e.g.
#                               path:/srv/ci-builds/{sha}
#   url:<https URL with {sha}>  a tarball from the project's own CI, e.g.
#                               url:https://ci.example.org/builds/{sha}/server.tar.gz; its sha256
#                               is read from <URL>.sha256 and checked before the tarball is unpacked
# Every value is checked first; a bad one is one line naming it, exit 2.
set -euo pipefail

fail() {
  echo "::error::server-gate: $1" >&2
  exit 2
}
[ "$#" -eq 4 ] || fail "usage: servers.sh <base checkout> <base sha> <head checkout> <head sha>"
from="${PERFGATE_SERVERS_FROM:-build}"
out="${GITHUB_OUTPUT:-/dev/stdout}"
tmp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"

side() {
  local name="$1" dir="$2" sha="$3" spec
  [[ "$sha" =~ ^[0-9a-f]{40}$ ]] || fail "$name sha: not a full lower-case commit SHA"
  case "$from" in
    build)
      [ -d "$dir" ] && [ "${dir:0:1}" = / ] || fail "$name checkout: not an absolute directory: $dir"
      [ -f "$dir/CMakeLists.txt" ] || fail "$name checkout: $dir has no CMakeLists.txt (not a server source tree)"
      spec="build:$dir@$sha"
      ;;
    path:*)
      [[ "$from" =~ ^path:/[A-Za-z0-9._/+{}-]+$ && "$from" == *"{sha}"* && "/$from/" != */../* ]] ||
        fail "PERFGATE_SERVERS_FROM: path:<absolute directory with {sha}> of letters, digits and . _ / + -, no .. (e.g. path:/srv/ci-builds/{sha})"
      spec="${from//\{sha\}/$sha}"
      [ -d "${spec#path:}" ] || fail "$name: no install at ${spec#path:} (has the project's CI built $sha?)"
      ;;
    url:*)
      [[ "$from" =~ ^url:https://[A-Za-z0-9.-]+(:[0-9]{1,5})?/[A-Za-z0-9._~/%+={}-]+$ && "$from" == *"{sha}"* && "$from" != *..* ]] ||
        fail "PERFGATE_SERVERS_FROM: url:<https URL with {sha}> (e.g. url:https://ci.example.org/builds/{sha}/server.tar.gz)"
      spec="$(fetch_tarball "$name" "${from#url:}" "$sha")"
      ;;
    *) fail "PERFGATE_SERVERS_FROM: build, path:<directory with {sha}> or url:<https URL with {sha}>" ;;
  esac
  echo "$name=$spec" >>"$out"
}

# Downloads <url>.sha256 and the tarball, checks it, unpacks it; prints path:<install prefix>.
fetch_tarball() {
  local name="$1" url="${2//\{sha\}/$3}" dir="$tmp/server-$1" sum
  rm -rf "$dir" "$dir.tar"
  mkdir -p "$dir"
  sum="$(curl -fsSL --proto '=https' --max-filesize 1000 -- "$url.sha256" | awk '{print $1; exit}')" ||
    fail "$name: cannot read $url.sha256"
  [[ "$sum" =~ ^[0-9a-f]{64}$ ]] || fail "$name: $url.sha256 does not start with a sha256"
  curl -fsSL --proto '=https' --max-filesize 4000000000 -o "$dir.tar" -- "$url" || fail "$name: cannot download $url"
  echo "$sum  $dir.tar" | sha256sum -c --quiet >/dev/null 2>&1 || fail "$name: $url does not have the sha256 in $url.sha256"
  tar -xf "$dir.tar" -C "$dir" --no-same-owner
  rm -f "$dir.tar"
  local top=()
  mapfile -t top < <(ls -A "$dir")
  if [ "${#top[@]}" -eq 1 ] && [ -d "$dir/${top[0]}" ]; then dir="$dir/${top[0]}"; fi
  echo "path:$dir"
}

side base "$1" "$2"
side head "$3" "$4"
