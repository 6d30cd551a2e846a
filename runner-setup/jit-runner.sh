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
#                                         cycle without systemd, for trying a host and for tests.
#                                         NOT a security boundary (see below).
#   jit-runner.sh warm <spec>...          as root: fetch servers into the shared cache and seal them
#   jit-runner.sh --help                  this text
#
# The reset, before every job: the runner user's crontab and at jobs are removed; every process of
# the runner user is killed; the previous job's copy of the runner (with its _work, _diag and the
# JIT credentials the runner wrote there) and the runner user's home are removed, and so is every
# file and directory the runner user owns, at any depth, in /tmp, /var/tmp, /dev/shm, /run/lock,
# /dev/mqueue, /var/crash and the cron and at spools (/var/spool/cron, /var/spool/at); a fresh copy
# of the root-owned runner in /opt/actions-runner is made for the next job (hard links: the job may
# add files to its copy, never change the runner's); in perfgate's cache everything the runner
# user created is removed, and every sealed (root-owned) server is checked against its file
# manifest (perfgate server verify) and removed if it changed.
#
# `loop` is not a security boundary. It runs the same reset, but without what the service adds:
# systemd's KillMode=control-group (the job's whole process tree ends with the job, even processes
# that left it), PrivateTmp (each job its own /tmp), root kept apart from the job's user (the loop
# runs the job with runuser from a root shell; run as another user, it cannot kill or remove what
# the job left at all), and a restart that does not depend on the loop's shell surviving the job.
# A job can leave things the reset does not know: files in other world-writable directories, a
# process that forks faster than one kill pass. Use it to try a host or in tests; for a runner that
# takes jobs from pull requests, use the service (install-runner.sh).
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
# The job's copy of the runner: run.sh --jitconfig writes the runner's configuration files into the
# directory it runs from, so that directory must belong to the runner user.
JOB_DIR=/var/lib/perfgate-runner/runner
CACHE="${PERFGATE_CACHE_DIR:-/var/cache/perfgate}"
RUN_DIR=/run/perfgate-runner
CONFIG="$RUN_DIR/jitconfig"
CLI="${PERFGATE_CLI:-$HERE/../bin/perfgate.mjs}"

cmd="${1:-}"
[ $# -gt 0 ] && shift
JOBS=0
SPECS=()
help() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
case "$cmd" in -h | --help) help; exit 0 ;; esac
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) help; exit 0 ;;
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

# Where a job can leave files outside its home without any privilege: the world-writable
# directories (searched at every depth: a file deep under a root-owned directory such as
# /tmp/.X11-unix counts too) and the cron and at spools, where a crontab or an at job would run code
# as the runner user after the reset. A directory that does not exist is skipped.
SWEEP_DIRS=(/tmp /var/tmp /dev/shm /run/lock /dev/mqueue /var/crash /var/spool/cron /var/spool/at)

# The runner user's crontab by name (Debian: crontabs/<user>, owned by the user; cronie and
# SUSE keep it under the spool directly or in tabs/, possibly owned by root): removed before the
# processes are killed, so that cron starts nothing new in between.
reset_schedules() {
  local uid="$1" f d
  for f in /var/spool/cron/crontabs /var/spool/cron /var/spool/cron/tabs; do
    if [ -f "$(hp "$f/$RUNNER_USER")" ] || [ -L "$(hp "$f/$RUNNER_USER")" ]; then remove_path "$f/$RUNNER_USER"; fi
  done
  [ -n "$uid" ] || return 0
  # at jobs are files owned by the user who queued them (atd runs each as its file's owner)
  for d in /var/spool/cron/atjobs /var/spool/at; do sweep "$d" "$uid"; done
}

# sweep <dir> <uid>: removes every file and directory under <dir> owned by <uid>, at any depth (a
# directory of the user's goes whole; a root-owned one is searched), on <dir>'s filesystem only.
sweep() {
  local dir="$1" uid="$2" f
  [ -d "$(hp "$dir")" ] || return 0
  while IFS= read -r -d '' f; do
    remove_path "${f#"$PG_ROOT"}"
  done < <(find "$(hp "$dir")" -xdev -mindepth 1 -uid "$uid" -prune -print0)
}

# Removes what the runner user left: schedules, processes, work and temporary files.
reset_user_files() {
  local uid="$1" d
  reset_schedules "$uid"
  if [ -n "$uid" ]; then
    # pkill exits 1 when the user has no process left: that is the normal case.
    run_cmd pkill -KILL -u "$uid" || true
  fi
  remove_path "$JOB_DIR"
  [ -n "$uid" ] || return 0
  for d in "${SWEEP_DIRS[@]}" "/home/$RUNNER_USER"; do sweep "$d" "$uid"; done
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

# A fresh copy of the pristine runner for the next job: new directories owned by the runner user,
# files hard-linked to root's read-only originals.
copy_runner() {
  [ -x "$(hp "$RUNNER_DIR")/run.sh" ] || die "no runner in $RUNNER_DIR: run install-runner.sh first"
  if [ "$PG_DRY_RUN" = 1 ]; then
    say "copy $RUNNER_DIR -> $JOB_DIR (hard links; directories owned by $RUNNER_USER)"
    return 0
  fi
  mkdir -p "$(dirname "$(hp "$JOB_DIR")")"
  # Hard links need one filesystem; otherwise a plain copy (still root's files).
  cp -al "$(hp "$RUNNER_DIR")" "$(hp "$JOB_DIR")" 2>/dev/null || {
    rm -rf "$(hp "$JOB_DIR")"
    cp -a "$(hp "$RUNNER_DIR")" "$(hp "$JOB_DIR")"
  }
  mkdir -p "$(hp "$JOB_DIR")/_work" "$(hp "$JOB_DIR")/_diag"
  if ! pg_fake_root; then find "$JOB_DIR" -type d -exec chown "$RUNNER_USER:" {} +; fi
  say "copied $RUNNER_DIR -> $JOB_DIR"
}

prepare() {
  reset
  copy_runner
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
  exec "$(hp "$JOB_DIR")/run.sh" --jitconfig "$cfg"
}

loop() {
  local n=0 status
  say "loop: not a security boundary (no cgroup kill, no private /tmp); for pull-request jobs use perfgate-runner.service (jit-runner.sh --help)"
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
      say "run perfgate server fetch $spec (PERFGATE_CACHE_DIR=$CACHE, PERFGATE_BUILD_CACHE=trusted), then chown -R root:root and chmod -R a-w its directory"
      continue
    fi
    # A build of a trusted ref (the default branch, a tag) fills the trusted layer of the build
    # cache, which pull requests' builds only read (docs/runner-security.md, "The build cache").
    line="$(PERFGATE_BUILD_CACHE=trusted PERFGATE_CACHE_DIR="$(hp "$CACHE")" node "$CLI" server fetch "$spec")" || die "server fetch $spec failed"
    dir="$(hp "$CACHE")/servers/$(printf '%s' "${line#* }" | sed "s|^$(hp "$CACHE")/servers/||; s|/.*||")"
    chown -R 0:0 "$dir"
    chmod -R a-w "$dir"
    say "sealed ${dir#"$PG_ROOT"} ($spec)"
  done
  if [ "$PG_DRY_RUN" = 1 ]; then
    say "then chown -R root:root and chmod -R go-w the build cache's trusted layers (ccache-trusted, ccache-trusted-local)"
    return 0
  fi
  local layer
  for layer in ccache-trusted ccache-trusted-local; do
    [ -d "$(hp "$CACHE")/$layer" ] || continue
    chown -R 0:0 "$(hp "$CACHE")/$layer"
    chmod -R go-w "$(hp "$CACHE")/$layer"
    say "sealed the build cache's ${layer} (read-only to jobs)"
  done
}

case "$cmd" in
  prepare) prepare ;;
  reset) reset ;;
  run) run ;;
  loop) loop ;;
  warm) warm ;;
  *) usage_error "usage: jit-runner.sh prepare|reset|run|loop [--jobs N]|warm <spec>... [--dry-run] (--help: what each does)" ;;
esac
