#!/usr/bin/env bash
# The ephemeral just-in-time runner's job cycle. perfgate-runner.service (install-runner.sh) runs
#   ExecStartPre=+jit-runner.sh prepare   as root: reset the host, then get a fresh JIT config
#   ExecStart=jit-runner.sh run           as the runner user: run.sh --jitconfig <config>, one job
# and Restart=always starts the next cycle whatever the job's exit status.
#
#   jit-runner.sh prepare [--dry-run]     reset, then write the JIT config for the next job
#   jit-runner.sh reset [--dry-run]       only the reset
#   jit-runner.sh run                     exec the runner for one job with the prepared config
#   jit-runner.sh loop [--jobs N]         prepare + run, again and again (N times): the service's
#                                         cycle, for hosts without systemd and for tests
#   jit-runner.sh warm <spec>...          as root: fetch servers into the shared cache and seal them
#
# The reset, before every job: every process of the runner user is killed; the runner's _work,
# the runner user's home and its files in /tmp, /var/tmp and /dev/shm (server datadirs, sockets)
# are removed; in perfgate's cache everything the runner user created is removed, and every sealed
# (root-owned) server is checked against its file manifest (perfgate server verify) and removed
# if it changed.
#
# Settings come from the environment (/etc/perfgate-runner/runner.env under systemd):
#   PERFGATE_RUNNER_USER (perfgate-runner), PERFGATE_RUNNER_DIR (/opt/actions-runner),
#   PERFGATE_CACHE_DIR (/var/cache/perfgate), PERFGATE_CLI (perfgate in this checkout),
#   and jit-config.mjs's PERFGATE_RUNNER_SCOPE, _TOKEN_FILE, _LABELS, _GROUP_ID, GITHUB_API_URL.
# Paths are under PERFGATE_HOST_ROOT (default /), for tests.
set -euo pipefail
PG_NAME=jit-runner
HERE="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

RUNNER_USER="${PERFGATE_RUNNER_USER:-perfgate-runner}"
RUNNER_DIR="${PERFGATE_RUNNER_DIR:-/opt/actions-runner}"
CACHE="${PERFGATE_CACHE_DIR:-/var/cache/perfgate}"
RUN_DIR=/run/perfgate-runner
CONFIG="$RUN_DIR/jitconfig"
CLI="${PERFGATE_CLI:-$HERE/../bin/perfgate.mjs}"

cmd="${1:-}"
[ $# -gt 0 ] && shift
JOBS=0
SPECS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) PG_DRY_RUN=1 ;;
    --jobs) JOBS="${2:-}"; shift ;;
    *) if [ "$cmd" = warm ]; then SPECS+=("$1"); else usage_error "unknown argument $1"; fi ;;
  esac
  shift
done
[[ "$JOBS" =~ ^[0-9]+$ ]] || usage_error "--jobs $JOBS: accepted: a whole number (0: forever)"

runner_uid() {
  if pg_fake_root; then
    awk -F: -v u="$RUNNER_USER" '$1 == u { print $3 }' "$(hp /etc/passwd)" 2>/dev/null
  else
    id -u "$RUNNER_USER" 2>/dev/null
  fi
}

# Removes what the runner user left: processes, work and temporary files.
reset_user_files() {
  local uid="$1" d f
  if [ -n "$uid" ]; then
    # pkill exits 1 when the user has no process left: that is the normal case.
    run_cmd pkill -KILL -u "$uid" || true
  fi
  if [ -d "$(hp "$RUNNER_DIR/_work")" ]; then
    for f in "$(hp "$RUNNER_DIR/_work")"/* "$(hp "$RUNNER_DIR/_work")"/.[!.]*; do
      [ -e "$f" ] || [ -L "$f" ] || continue
      remove_path "${f#"$PG_ROOT"}"
    done
  fi
  [ -n "$uid" ] || return 0
  for d in /tmp /var/tmp /dev/shm "/home/$RUNNER_USER"; do
    [ -d "$(hp "$d")" ] || continue
    while IFS= read -r -d '' f; do
      remove_path "${f#"$PG_ROOT"}"
    done < <(find "$(hp "$d")" -mindepth 1 -maxdepth 1 -uid "$uid" -print0)
  done
}

owner_uid() { stat -c %u "$1"; }

# perfgate's cache: anything not owned by root was made by a job and goes; sealed servers are verified.
reset_cache() {
  local root f dir
  root="$(hp "$CACHE")"
  [ -d "$root" ] || return 0
  for f in "$root"/* "$root"/downloads/* "$root"/servers/*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    case "$f" in "$root/downloads" | "$root/servers") continue ;; esac
    if [ "$(owner_uid "$f")" != 0 ]; then remove_path "${f#"$PG_ROOT"}"; fi
  done
  for dir in "$root"/servers/*/; do
    dir="${dir%/}"
    [ -f "$dir/perfgate-install.json" ] || continue
    if [ "$PG_DRY_RUN" = 1 ]; then
      say "run perfgate server verify ${dir#"$PG_ROOT"}"
      continue
    fi
    if PERFGATE_REQUIRE_MANIFEST=1 node "$CLI" server verify "$dir" >/dev/null 2>&1; then
      say "verified ${dir#"$PG_ROOT"}"
    else
      say "refused ${dir#"$PG_ROOT"}: $(PERFGATE_REQUIRE_MANIFEST=1 node "$CLI" server verify "$dir" 2>&1 | head -n 1)"
      remove_path "${dir#"$PG_ROOT"}"
    fi
  done
}

reset() {
  say "reset: before the next job"
  reset_user_files "$(runner_uid)"
  reset_cache
}

prepare() {
  reset
  make_dir "$RUN_DIR" 755
  if [ "$PG_DRY_RUN" = 1 ]; then
    say "run node $HERE/jit-config.mjs > $CONFIG (mode 400, owner $RUNNER_USER)"
    return 0
  fi
  local cfg
  cfg="$(node "$HERE/jit-config.mjs")" || die "no JIT config (see the line above); the service retries"
  put_file "$CONFIG" 400 "$cfg" >/dev/null
  if ! pg_fake_root; then chown "$RUNNER_USER" "$(hp "$CONFIG")"; fi
  say "prepared a JIT config for the next job"
}

run() {
  local file cfg
  file="$(hp "$CONFIG")"
  [ -r "$file" ] || die "no JIT config in $CONFIG: jit-runner.sh prepare runs first (ExecStartPre)"
  cfg="$(cat "$file")"
  rm -f "$file" 2>/dev/null || true
  exec "$(hp "$RUNNER_DIR")/run.sh" --jitconfig "$cfg"
}

loop() {
  local n=0 status
  while [ "$JOBS" = 0 ] || [ "$n" -lt "$JOBS" ]; do
    n=$((n + 1))
    if ! (prepare); then
      say "job $n: prepare failed; retrying in 5 s"
      sleep 5
      continue
    fi
    status=0
    if pg_fake_root || [ "$(id -u)" != 0 ]; then
      ("$0" run) || status=$?
    else
      runuser -u "$RUNNER_USER" -- "$0" run || status=$?
    fi
    say "job $n: the runner exited with $status; next job"
  done
}

warm() {
  [ "${#SPECS[@]}" -gt 0 ] || usage_error "warm: give server specs, e.g. warm maven:mariadb@11.4.5"
  make_dir "$CACHE" 755
  make_dir "$CACHE/servers" 1777
  local spec line dir
  for spec in "${SPECS[@]}"; do
    if [ "$PG_DRY_RUN" = 1 ]; then
      say "run perfgate server fetch $spec (PERFGATE_CACHE_DIR=$CACHE), then chown -R root:root and chmod -R a-w its directory"
      continue
    fi
    line="$(PERFGATE_CACHE_DIR="$(hp "$CACHE")" node "$CLI" server fetch "$spec")" || die "server fetch $spec failed"
    dir="$(hp "$CACHE")/servers/$(printf '%s' "${line#* }" | sed "s|^$(hp "$CACHE")/servers/||; s|/.*||")"
    chown -R 0:0 "$dir"
    chmod -R a-w "$dir"
    say "sealed ${dir#"$PG_ROOT"} ($spec)"
  done
}

case "$cmd" in
  prepare) prepare ;;
  reset) reset ;;
  run) run ;;
  loop) loop ;;
  warm) warm ;;
  *) usage_error "usage: jit-runner.sh prepare|reset|run|loop [--jobs N]|warm <spec>... [--dry-run]" ;;
esac
