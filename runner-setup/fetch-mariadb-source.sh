#!/usr/bin/env bash
# Fetches the MariaDB 10.11.18 source as Debian ships it (`apt-get source --download-only`) and
# turns the upstream tarball into a git repository with one commit tagged mariadb-10.11.18, so
# it can be built with `perfgate run --server build:<dir>@mariadb-10.11.18`.
#
#   runner-setup/fetch-mariadb-source.sh [target-dir]     (default: ./mariadb-10.11.18)
#
# Adds a deb-src entry for bookworm (in /etc/apt/sources.list.d/perfgate-deb-src.sources) only
# if apt has no deb-src entry at all; needs root (or sudo) for that and for apt-get update.
# The commit has a fixed author and date, so the same tarball always gives the same commit id.
# Safe to run repeatedly: an existing repository with the tag is left alone.
# MARIADB_DEB_VERSION overrides the Debian package version (default 1:10.11.18-0+deb12u1).
set -euo pipefail

deb_version="${MARIADB_DEB_VERSION:-1:10.11.18-0+deb12u1}"
upstream="${deb_version#*:}"
upstream="${upstream%-*}"
tag="mariadb-${upstream}"
target="${1:-mariadb-${upstream}}"

if git -C "$target" rev-parse -q --verify "refs/tags/${tag}" >/dev/null 2>&1; then
  echo "fetch-mariadb-source: ${target} already has ${tag} ($(git -C "$target" rev-parse "${tag}^{commit}"))"
  exit 0
fi
if [ -e "$target" ] && [ -n "$(ls -A "$target" 2>/dev/null)" ]; then
  echo "fetch-mariadb-source: ${target} exists and is not a repository with ${tag}; remove it or pick another directory" >&2
  exit 1
fi

# Another apt (unattended-upgrades on a fresh host, a parallel setup) may hold dpkg's lock: wait for
# it for up to 10 minutes instead of failing at once.
APT_WAIT=(-o DPkg::Lock::Timeout=600)
SUDO=()
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=(sudo); fi

has_deb_src() {
  grep -rqsE '^\s*(deb-src\s|Types:.*\bdeb-src\b)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}
if ! has_deb_src; then
  # shellcheck source=/dev/null
  . /etc/os-release
  codename="${VERSION_CODENAME:-bookworm}"
  echo "fetch-mariadb-source: adding deb-src entries for ${codename} in /etc/apt/sources.list.d/perfgate-deb-src.sources"
  "${SUDO[@]}" tee /etc/apt/sources.list.d/perfgate-deb-src.sources >/dev/null <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: ${codename} ${codename}-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: ${codename}-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  "${SUDO[@]}" apt-get "${APT_WAIT[@]}" update -qq
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/perfgate-mariadb-src.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "fetch-mariadb-source: apt-get source --download-only mariadb=${deb_version}"
# apt verifies the downloaded files against the signed Sources index.
(cd "$work" && apt-get source -qq --download-only "mariadb=${deb_version}")
orig=""
for f in "$work"/mariadb_"${upstream}".orig.tar.*; do
  case "$f" in *.asc) ;; *) [ -f "$f" ] && orig="$f" ;; esac
done
if [ -z "$orig" ]; then
  echo "fetch-mariadb-source: apt-get source gave no mariadb_${upstream}.orig.tar.*" >&2
  exit 1
fi

mkdir -p "$target"
tar -xf "$orig" -C "$target" --strip-components=1
test -f "$target/VERSION" || { echo "fetch-mariadb-source: ${orig} has no VERSION file at its top" >&2; exit 1; }

export GIT_AUTHOR_NAME="perfgate" GIT_AUTHOR_EMAIL="perfgate@localhost" \
  GIT_COMMITTER_NAME="perfgate" GIT_COMMITTER_EMAIL="perfgate@localhost" \
  GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
git -C "$target" init -q -b main
# Store the files byte for byte: the tarball's .gitattributes would convert CRLF files, and its
# .gitignore files must not drop sources from the commit.
printf '* -text\n' >"$target/.git/info/attributes"
git -C "$target" add -A -f .
git -C "$target" commit -q --no-verify -m "MariaDB ${upstream} (Debian source ${deb_version}, $(basename "$orig"))"
git -C "$target" tag "$tag"
echo "fetch-mariadb-source: ${target} at ${tag} ($(git -C "$target" rev-parse HEAD)); build with --server build:$(cd "$target" && pwd)@${tag}"
