# shellcheck shell=bash
# Shared by the runner-setup scripts: a root prefix for every path (PERFGATE_HOST_ROOT, default /,
# so tests run the scripts against a fake tree), --dry-run (print each write, change nothing), and
# a record of original values so uninstall can restore them.
#
# Every change goes through one of: put_file, put_value, remove_path, make_dir, run_cmd. In dry-run
# mode each prints exactly what it would do, one line per write:
#   write <path> (<bytes> bytes, mode <mode>)     a file, followed by its content indented
#   set <path>: <old> -> <new>                    a sysfs/procfs value
#   remove <path>
#   mkdir <path> (mode <mode>)
#   run <command...>
# With a fake root (PERFGATE_HOST_ROOT other than /) commands that would act on the real system
# (systemctl, useradd, pkill, chown to a user) are printed as "skip (fake root): ..." and not run.

PG_ROOT="${PERFGATE_HOST_ROOT:-/}"
PG_ROOT="${PG_ROOT%/}"
PG_DRY_RUN=0
PG_STATE_DIR="/var/lib/perfgate-runner"

# The real path of an absolute host path under the root prefix.
hp() { printf '%s%s' "$PG_ROOT" "$1"; }

pg_fake_root() { [ -n "$PG_ROOT" ]; }

say() { printf '%s\n' "$*"; }
die() {
  printf '%s: %s\n' "${PG_NAME:-runner-setup}" "$*" >&2
  exit 1
}
usage_error() {
  printf '%s: %s\n' "${PG_NAME:-runner-setup}" "$*" >&2
  exit 2
}

# put_file <path> <mode> <content>: writes the file unless it already has that content and mode.
put_file() {
  local path="$1" mode="$2" content="$3" real
  real="$(hp "$path")"
  if [ -f "$real" ] && [ "$(cat "$real")" = "$content" ] && [ "$(stat -c %a "$real")" = "$mode" ]; then
    say "unchanged $path"
    return 0
  fi
  if [ "$PG_DRY_RUN" = 1 ]; then
    say "write $path (${#content} bytes, mode $mode)"
    printf '%s\n' "$content" | sed 's/^/    | /'
    return 0
  fi
  mkdir -p "$(dirname "$real")"
  local tmp="$real.tmp-$$"
  printf '%s\n' "$content" >"$tmp"
  chmod "$mode" "$tmp"
  mv -f "$tmp" "$real"
  say "wrote $path"
}

# The current value of a sysfs/procfs file: the bracketed choice for selectors like
# "always [madvise] never", otherwise the trimmed content.
read_value() {
  local real text
  real="$(hp "$1")"
  [ -r "$real" ] || return 1
  text="$(cat "$real")"
  if [[ "$text" =~ \[([^]]+)\] ]]; then printf '%s' "${BASH_REMATCH[1]}"; else printf '%s' "$text" | tr -d '\n'; fi
}

# saved_original <key>: the value recorded before perfgate's first change, or status 1.
saved_original() {
  local file line
  file="$(hp "$PG_STATE_DIR/${PG_SAVED_FILE:-saved-values}")"
  [ -f "$file" ] || return 1
  while IFS= read -r line; do
    if [ "${line%%=*}" = "$1" ]; then
      printf '%s' "${line#*=}"
      return 0
    fi
  done <"$file"
  return 1
}

# save_original <key> <value>: records the value before the first change (never overwritten, so
# running a script twice keeps the real original).
save_original() {
  local file
  file="$(hp "$PG_STATE_DIR/${PG_SAVED_FILE:-saved-values}")"
  [ "$PG_DRY_RUN" = 1 ] && return 0
  saved_original "$1" >/dev/null && return 0
  mkdir -p "$(dirname "$file")"
  printf '%s=%s\n' "$1" "$2" >>"$file"
}

# put_value <path> <value>: a sysfs/procfs write, with the original saved for uninstall.
put_value() {
  local path="$1" want="$2" have
  if ! have="$(read_value "$path")"; then
    say "absent $path (not set)"
    return 0
  fi
  if [ "$have" = "$want" ]; then
    say "unchanged $path: $want"
    return 0
  fi
  if [ "$PG_DRY_RUN" = 1 ]; then
    say "set $path: $have -> $want"
    return 0
  fi
  save_original "$path" "$have"
  if ! printf '%s\n' "$want" >"$(hp "$path")" 2>/dev/null; then
    say "failed $path: the kernel refused $want (still $have)"
    return 0
  fi
  say "set $path: $have -> $want"
}

remove_path() {
  local real
  real="$(hp "$1")"
  if [ ! -e "$real" ] && [ ! -L "$real" ]; then return 0; fi
  if [ "$PG_DRY_RUN" = 1 ]; then
    say "remove $1"
    return 0
  fi
  rm -rf -- "$real"
  say "removed $1"
}

make_dir() {
  local path="$1" mode="$2" real
  real="$(hp "$path")"
  if [ -d "$real" ] && [ "$(stat -c %a "$real")" = "$mode" ]; then return 0; fi
  if [ "$PG_DRY_RUN" = 1 ]; then
    say "mkdir $path (mode $mode)"
    return 0
  fi
  mkdir -p "$real"
  chmod "$mode" "$real"
  say "made $path"
}

# run_cmd <command...>: a command acting on the real system.
run_cmd() {
  if [ "$PG_DRY_RUN" = 1 ]; then
    say "run $*"
    return 0
  fi
  if pg_fake_root; then
    say "skip (fake root): $*"
    return 0
  fi
  say "run $*"
  "$@"
}
