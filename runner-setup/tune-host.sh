#!/usr/bin/env bash
# Tunes a benchmark host for quiet measurement, and says whether it is tuned.
#
#   tune-host.sh [--dry-run] [--housekeeping 0] [--smt off|on|keep] [--thp never|madvise]
#   tune-host.sh --verify      one line per setting (ok / differs / absent); exit 1 if any differs
#   tune-host.sh --uninstall   restore every value saved before the first change, re-enable units
#
# What it sets (only where the host has the file; see docs/runner-security.md and README.md here):
#   CPU governor performance on every CPU; turbo off (intel_pstate/no_turbo=1, cpufreq/boost=0);
#   SMT as chosen (--smt, default: left alone); transparent huge pages never (enabled and defrag);
#   vm.swappiness=1; kernel.nmi_watchdog=0; perf_event_max_sample_rate=1; irqbalance stopped and
#   every IRQ's affinity on the housekeeping CPUs (--housekeeping, default CPU 0), so benchmark CPUs
#   take no interrupts they can avoid; I/O scheduler none for NVMe, mq-deadline for other disks;
#   cron and the periodic apt/man-db/fstrim/logrotate/e2scrub timers disabled; a boot unit
#   (perfgate-tune.service) that applies the same settings after a reboot.
# Originals are saved once in /var/lib/perfgate-runner/tune-host.saved; running it again changes
# nothing that is already set. Paths are under PERFGATE_HOST_ROOT (default /), for tests.
set -euo pipefail
PG_NAME=tune-host
PG_SAVED_FILE=tune-host.saved
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

MODE=apply
HOUSEKEEPING=0
SMT=keep
THP=never
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) PG_DRY_RUN=1 ;;
    --verify) MODE=verify ;;
    --uninstall) MODE=uninstall ;;
    --housekeeping) HOUSEKEEPING="${2:?--housekeeping needs a CPU list, e.g. 0 or 0,1}"; ARGS+=("$1" "$2"); shift ;;
    --smt) SMT="${2:-}"; ARGS+=("$1" "$SMT"); shift ;;
    --thp) THP="${2:-}"; ARGS+=("$1" "$THP"); shift ;;
    -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
    *) usage_error "unknown argument $1 (accepted: --dry-run, --verify, --uninstall, --housekeeping LIST, --smt off|on|keep, --thp never|madvise)" ;;
  esac
  shift
done
[[ "$HOUSEKEEPING" =~ ^[0-9]+([-,][0-9]+)*$ ]] || usage_error "--housekeeping $HOUSEKEEPING: accepted: a CPU list like 0 or 0-1,4"
case "$SMT" in off | on | keep) ;; *) usage_error "--smt $SMT: accepted: off, on, keep" ;; esac
case "$THP" in never | madvise) ;; *) usage_error "--thp $THP: accepted: never, madvise" ;; esac

PERIODIC_UNITS=(cron.service anacron.timer apt-daily.timer apt-daily-upgrade.timer man-db.timer fstrim.timer logrotate.timer e2scrub_all.timer dpkg-db-backup.timer)
BOOT_UNIT=/etc/systemd/system/perfgate-tune.service
DIFFERS=0

# The value settings, one "path<TAB>value" per line, for the paths this host has.
wanted_values() {
  local f dev name
  for f in "$(hp /sys/devices/system/cpu)"/cpu[0-9]*/cpufreq/scaling_governor; do
    [ -e "$f" ] && printf '%s\tperformance\n' "${f#"$PG_ROOT"}"
  done
  printf '%s\t1\n' /sys/devices/system/cpu/intel_pstate/no_turbo
  printf '%s\t0\n' /sys/devices/system/cpu/cpufreq/boost
  [ "$SMT" != keep ] && printf '%s\t%s\n' /sys/devices/system/cpu/smt/control "$SMT"
  printf '%s\t%s\n' /sys/kernel/mm/transparent_hugepage/enabled "$THP"
  printf '%s\t%s\n' /sys/kernel/mm/transparent_hugepage/defrag "$THP"
  printf '%s\t1\n' /proc/sys/vm/swappiness
  printf '%s\t0\n' /proc/sys/kernel/nmi_watchdog
  printf '%s\t1\n' /proc/sys/kernel/perf_event_max_sample_rate
  for f in "$(hp /proc/irq)"/[0-9]*/smp_affinity_list; do
    [ -e "$f" ] && printf '%s\t%s\n' "${f#"$PG_ROOT"}" "$HOUSEKEEPING"
  done
  for f in "$(hp /sys/block)"/*/queue/scheduler; do
    [ -e "$f" ] || continue
    dev="${f#"$(hp /sys/block)/"}"
    name="${dev%%/*}"
    case "$name" in loop* | ram* | zram* | dm-* | md* | sr*) continue ;; esac
    if [[ "$name" == nvme* ]]; then printf '%s\tnone\n' "${f#"$PG_ROOT"}"; else printf '%s\tmq-deadline\n' "${f#"$PG_ROOT"}"; fi
  done
  return 0
}

# A unit is enabled when a *.wants/ symlink of it exists under /etc/systemd/system.
unit_enabled() {
  compgen -G "$(hp /etc/systemd/system)/*.wants/$1" >/dev/null
}
unit_exists() {
  local d
  for d in /etc/systemd/system /lib/systemd/system /usr/lib/systemd/system; do
    [ -e "$(hp "$d/$1")" ] && return 0
  done
  return 1
}

# The *.wants directories holding a unit's enable links (e.g. multi-user.target.wants), comma-separated.
unit_wants() {
  local link out=""
  for link in "$(hp /etc/systemd/system)"/*.wants/"$1"; do
    [ -L "$link" ] || [ -e "$link" ] || continue
    link="${link%/*}"
    out="${out:+$out,}${link##*/}"
  done
  printf '%s' "$out"
}

# Disables and stops a unit (saving where it was enabled). With a fake root, systemctl's effect on
# the tree (removing the enable links) is done by hand, so tests see the same files change.
unit_off() {
  local wants
  wants="$(unit_wants "$1")"
  save_original "unit:$1" "$wants"
  if pg_fake_root && [ "$PG_DRY_RUN" != 1 ]; then
    rm -f "$(hp /etc/systemd/system)"/*.wants/"$1"
    say "disabled $1 (fake root: removed its links in $wants)"
  else
    run_cmd systemctl disable --now "$1"
  fi
}

unit_on() {
  local unit="$1" wants="$2" w
  if pg_fake_root && [ "$PG_DRY_RUN" != 1 ]; then
    for w in ${wants//,/ }; do
      mkdir -p "$(hp "/etc/systemd/system/$w")"
      ln -sfn "/lib/systemd/system/$unit" "$(hp "/etc/systemd/system/$w/$unit")"
    done
    say "enabled $unit (fake root: restored its links in $wants)"
  else
    run_cmd systemctl enable --now "$unit"
  fi
}

apply() {
  local path want
  while IFS=$'\t' read -r path want; do put_value "$path" "$want"; done < <(wanted_values)
  for unit in irqbalance.service "${PERIODIC_UNITS[@]}"; do
    unit_exists "$unit" || continue
    if unit_enabled "$unit"; then unit_off "$unit"; else say "unchanged $unit: disabled"; fi
  done
  local self
  self="$(cd "$(dirname "$0")" && pwd)/tune-host.sh"
  put_file "$BOOT_UNIT" 644 "[Unit]
Description=perfgate: tune this host for quiet benchmarks (runner-setup/tune-host.sh)
After=sysinit.target

[Service]
Type=oneshot
ExecStart=$self${ARGS[*]:+ ${ARGS[*]}}
RemainAfterExit=yes

[Install]
WantedBy=multi-user.target"
  if ! unit_enabled perfgate-tune.service; then unit_on perfgate-tune.service multi-user.target.wants; fi
}

verify() {
  local path want have
  while IFS=$'\t' read -r path want; do
    if ! have="$(read_value "$path")"; then
      say "absent  $path"
    elif [ "$have" = "$want" ]; then
      say "ok      $path: $have"
    else
      say "differs $path: $have (want $want)"
      DIFFERS=1
    fi
  done < <(wanted_values)
  for unit in irqbalance.service "${PERIODIC_UNITS[@]}"; do
    unit_exists "$unit" || continue
    if unit_enabled "$unit"; then
      say "differs $unit: enabled (want disabled)"
      DIFFERS=1
    else
      say "ok      $unit: disabled"
    fi
  done
  if [ "$DIFFERS" = 1 ]; then say "tune-host: NOT tuned"; else say "tune-host: tuned"; fi
  return "$DIFFERS"
}

uninstall() {
  local file line key value have
  file="$(hp "$PG_STATE_DIR/$PG_SAVED_FILE")"
  if [ -f "$file" ]; then
    while IFS= read -r line; do
      key="${line%%=*}"
      value="${line#*=}"
      case "$key" in
        unit:*) unit_on "${key#unit:}" "$value" ;;
        *)
          have="$(read_value "$key" || true)"
          if [ "$have" = "$value" ]; then
            say "unchanged $key: $value"
          elif [ "$PG_DRY_RUN" = 1 ]; then
            say "set $key: $have -> $value"
          elif printf '%s\n' "$value" >"$(hp "$key")" 2>/dev/null; then
            say "set $key: $have -> $value"
          else
            say "failed $key: the kernel refused $value (still $have)"
          fi
          ;;
      esac
    done <"$file"
  else
    say "nothing saved in $PG_STATE_DIR/$PG_SAVED_FILE: nothing to restore"
  fi
  if unit_enabled perfgate-tune.service; then unit_off perfgate-tune.service; fi
  remove_path "$BOOT_UNIT"
  remove_path "$PG_STATE_DIR/$PG_SAVED_FILE"
}

case "$MODE" in
  apply) apply ;;
  verify) verify ;;
  uninstall) uninstall ;;
esac
