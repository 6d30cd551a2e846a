#!/usr/bin/env bash
# Installs a pinned actions/runner release as perfgate's ephemeral just-in-time runner service.
#
#   install-runner.sh --repo <owner>/<name> | --org <org> [--labels bare-metal,perfgate]
#                     [--group-id 1] [--dry-run]
#   install-runner.sh --uninstall [--dry-run]
#
# What it does (each write printed; --dry-run prints them and changes nothing):
#   - a system user perfgate-runner (no login shell) that jobs run as;
#   - downloads actions-runner-linux-x64-<version>.tar.gz, checks it against the sha256 pinned
#     here (from the release's notes) and unpacks it into /opt/actions-runner, owned by root: a job
#     cannot change the runner (each job runs from a fresh hard-linked copy, jit-runner.sh);
#   - /opt/actions-runner/.env: the job environment (PERFGATE_CACHE_DIR=/var/cache/perfgate,
#     PERFGATE_REQUIRE_MANIFEST=1);
#   - /var/cache/perfgate (root) with servers/ sticky and world-writable like /tmp: jobs may add
#     servers, never change or remove the sealed ones (jit-runner.sh warm);
#   - /etc/perfgate-runner/runner.env (scope, labels, group) and perfgate-runner.service: before
#     each job, as root, jit-runner.sh prepare (reset + fresh JIT config); then one job as the
#     runner user; Restart=always. The token goes in /etc/perfgate-runner/token (mode 600), by hand.
# Environment: PERFGATE_RUNNER_URL (a mirror of the tarball: http(s):// or a file path),
# PERFGATE_RUNNER_VERSION + PERFGATE_RUNNER_SHA256 (another release, both together),
# PERFGATE_HOST_ROOT (default /; tests use a fake tree).
set -euo pipefail
PG_NAME=install-runner
HERE="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

# actions/runner v2.333.1, linux-x64: sha256 as published in the release's notes.
RUNNER_VERSION=2.333.1
RUNNER_SHA256=18f8f68ed1892854ff2ab1bab4fcaa2f5abeedc98093b6cb13638991725cab74
if [ -n "${PERFGATE_RUNNER_VERSION:-}${PERFGATE_RUNNER_SHA256:-}" ]; then
  if [ -z "${PERFGATE_RUNNER_VERSION:-}" ] || [ -z "${PERFGATE_RUNNER_SHA256:-}" ]; then
    usage_error "PERFGATE_RUNNER_VERSION and PERFGATE_RUNNER_SHA256 go together (the sha256 from that release's notes)"
  fi
  RUNNER_VERSION="$PERFGATE_RUNNER_VERSION"
  RUNNER_SHA256="$PERFGATE_RUNNER_SHA256"
fi
[[ "$RUNNER_SHA256" =~ ^[0-9a-f]{64}$ ]] || usage_error "PERFGATE_RUNNER_SHA256 $RUNNER_SHA256: accepted: 64 lower-case hex digits"
TARBALL="actions-runner-linux-x64-$RUNNER_VERSION.tar.gz"
URL="${PERFGATE_RUNNER_URL:-https://github.com/actions/runner/releases/download/v$RUNNER_VERSION/$TARBALL}"

RUNNER_USER=perfgate-runner
RUNNER_DIR=/opt/actions-runner
CACHE=/var/cache/perfgate
ETC=/etc/perfgate-runner
UNIT=/etc/systemd/system/perfgate-runner.service
DOWNLOADS=/var/cache/perfgate-runner

MODE=install
SCOPE=""
LABELS=bare-metal,perfgate
GROUP_ID=1
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) PG_DRY_RUN=1 ;;
    --uninstall) MODE=uninstall ;;
    --repo) SCOPE="repo:${2:-}"; shift ;;
    --org) SCOPE="org:${2:-}"; shift ;;
    --labels) LABELS="${2:-}"; shift ;;
    --group-id) GROUP_ID="${2:-}"; shift ;;
    -h | --help) sed -n '2,26p' "$0"; exit 0 ;;
    *) usage_error "unknown argument $1 (accepted: --repo OWNER/NAME | --org ORG, --labels, --group-id, --dry-run, --uninstall)" ;;
  esac
  shift
done

user_exists() { grep -q "^$RUNNER_USER:" "$(hp /etc/passwd)" 2>/dev/null; }

fetch_tarball() {
  local dest real got
  dest="$DOWNLOADS/$TARBALL"
  real="$(hp "$dest")"
  if [ -f "$real" ] && [ "$(sha256sum "$real" | cut -d' ' -f1)" = "$RUNNER_SHA256" ]; then
    say "unchanged $dest (sha256 $RUNNER_SHA256)"
    return 0
  fi
  if [ "$PG_DRY_RUN" = 1 ]; then
    say "download $URL -> $dest (must have sha256 $RUNNER_SHA256)"
    return 0
  fi
  mkdir -p "$(dirname "$real")"
  case "$URL" in
    http://* | https://*) curl -fsSL --retry 3 -o "$real.part" "$URL" || die "download $URL failed" ;;
    file://*) cp "${URL#file://}" "$real.part" || die "cannot read $URL" ;;
    *) cp "$URL" "$real.part" || die "cannot read $URL" ;;
  esac
  got="$(sha256sum "$real.part" | cut -d' ' -f1)"
  if [ "$got" != "$RUNNER_SHA256" ]; then
    rm -f "$real.part"
    die "$URL: sha256 $got does not match the pinned $RUNNER_SHA256 for actions/runner $RUNNER_VERSION; nothing installed"
  fi
  mv -f "$real.part" "$real"
  say "downloaded $dest (sha256 $got)"
}

unpack_runner() {
  local stamp="$RUNNER_VERSION $RUNNER_SHA256" real
  real="$(hp "$RUNNER_DIR")"
  if [ -f "$real/.perfgate-release" ] && [ "$(cat "$real/.perfgate-release")" = "$stamp" ]; then
    say "unchanged $RUNNER_DIR (actions/runner $RUNNER_VERSION)"
    return 0
  fi
  if [ "$PG_DRY_RUN" = 1 ]; then
    say "unpack $DOWNLOADS/$TARBALL -> $RUNNER_DIR (owner root, read-only)"
    return 0
  fi
  rm -rf "$real.new"
  mkdir -p "$real.new"
  tar -xzf "$(hp "$DOWNLOADS/$TARBALL")" -C "$real.new" || die "cannot unpack $TARBALL"
  [ -x "$real.new/run.sh" ] || die "$TARBALL has no run.sh: not an actions/runner release"
  printf '%s\n' "$stamp" >"$real.new/.perfgate-release"
  rm -rf "$real"
  mv "$real.new" "$real"
  say "unpacked actions/runner $RUNNER_VERSION into $RUNNER_DIR"
}

install() {
  [ -n "$SCOPE" ] || usage_error "give --repo OWNER/NAME or --org ORG (where the runner registers)"
  [[ "$SCOPE" =~ ^(repo:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+|org:[A-Za-z0-9_.-]+)$ ]] || usage_error "${SCOPE#*:}: accepted: --repo OWNER/NAME or --org ORG"
  [[ "$GROUP_ID" =~ ^[1-9][0-9]*$ ]] || usage_error "--group-id $GROUP_ID: accepted: a runner group id (integer >= 1)"
  [[ "$LABELS" =~ ^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$ ]] || usage_error "--labels $LABELS: accepted: comma-separated names"
  if user_exists; then say "unchanged user $RUNNER_USER"; else
    run_cmd useradd --system --create-home --home-dir "/home/$RUNNER_USER" --shell /usr/sbin/nologin "$RUNNER_USER"
  fi
  fetch_tarball
  unpack_runner
  run_cmd chown -R root:root "$RUNNER_DIR"
  run_cmd chmod -R go-w "$RUNNER_DIR"
  put_file "$RUNNER_DIR/.env" 644 "PERFGATE_CACHE_DIR=$CACHE
PERFGATE_REQUIRE_MANIFEST=1"
  make_dir "$CACHE" 755
  make_dir "$CACHE/servers" 1777
  make_dir "$CACHE/downloads" 1777
  make_dir "$ETC" 700
  put_file "$ETC/runner.env" 600 "PERFGATE_RUNNER_SCOPE=$SCOPE
PERFGATE_RUNNER_LABELS=$LABELS
PERFGATE_RUNNER_GROUP_ID=$GROUP_ID
PERFGATE_RUNNER_TOKEN_FILE=$ETC/token
PERFGATE_RUNNER_USER=$RUNNER_USER
PERFGATE_RUNNER_DIR=$RUNNER_DIR
PERFGATE_CACHE_DIR=$CACHE"
  put_file "$UNIT" 644 "[Unit]
Description=perfgate ephemeral GitHub Actions runner (a fresh just-in-time registration per job)
After=network-online.target
Wants=network-online.target
StartLimitIntervalSec=0

[Service]
User=$RUNNER_USER
EnvironmentFile=$ETC/runner.env
# '+': as root. Resets the host, then asks GitHub for a JIT config with the token only root reads.
ExecStartPre=+$HERE/jit-runner.sh prepare
ExecStart=$HERE/jit-runner.sh run
Restart=always
RestartSec=5
KillMode=control-group
TimeoutStopSec=60
NoNewPrivileges=yes
# every job gets its own /tmp, gone when the job ends
PrivateTmp=yes

[Install]
WantedBy=multi-user.target"
  run_cmd systemctl daemon-reload
  run_cmd systemctl enable perfgate-runner.service
  if [ -s "$(hp "$ETC/token")" ]; then
    run_cmd systemctl restart perfgate-runner.service
  else
    say "next: put a token that may administer the runners of ${SCOPE#*:} in $ETC/token (mode 600), then: systemctl start perfgate-runner"
  fi
}

uninstall() {
  run_cmd systemctl disable --now perfgate-runner.service
  remove_path "$UNIT"
  run_cmd systemctl daemon-reload
  remove_path "$RUNNER_DIR"
  remove_path "$ETC"
  remove_path "$DOWNLOADS"
  remove_path /run/perfgate-runner
  remove_path /var/lib/perfgate-runner/runner
  if user_exists; then run_cmd userdel --remove "$RUNNER_USER"; fi
  say "kept $CACHE (perfgate's server cache); remove it by hand if you want"
}

case "$MODE" in
  install) install ;;
  uninstall) uninstall ;;
esac
