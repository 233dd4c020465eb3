#!/usr/bin/env bash
# A real single-node Slurm cluster on this machine, for the Slurm executor's tests and for trying
# `faultline matrix examples/slurm/matrix.yaml` without a cluster: Debian's slurm-wlm + munge,
# slurmctld and slurmd on localhost, no systemd, no cgroups, no accounting daemon.
#
#   scripts/slurm-local.sh start       install (apt-get, when missing), configure, start; waits for the node
#   scripts/slurm-local.sh stop        stop slurmd, slurmctld and munged by their recorded PIDs
#   scripts/slurm-local.sh status      what runs, and the node's state (exit 0 only when jobs can run)
#   scripts/slurm-local.sh stop-node   stop slurmd alone (a node failure, for fault tests); `start` brings it back
#
# Every command is idempotent. Run as root (apt-get and the daemons need it). The partition
# oversubscribes the cores (OverSubscribe=FORCE:4) so that several cells run at once on a 2-core
# machine, and four fake GPUs (gres gpu:4 backed by files under the state directory) stand in for
# real ones, so GPU counts per cell are scheduled as on a GPU node. /etc/slurm/slurm.conf is written
# only when absent or written by this script: a cluster configured by someone else is never touched.
set -euo pipefail

STATE="${FAULTLINE_SLURM_STATE:-/var/lib/faultline-slurm}"
CONF=/etc/slurm/slurm.conf
GRES_CONF=/etc/slurm/gres.conf
CONF_CHANGED=0
MARK='# written by faultline scripts/slurm-local.sh'
HOST="$(hostname -s)"
FAKE_GPUS=4

log() { printf 'slurm-local: %s\n' "$*" >&2; }
die() {
  log "$*"
  exit 2
}

need_root() { [ "$(id -u)" -eq 0 ] || die "run as root (apt-get and the Slurm daemons need it)"; }

# The pid in FILE when that process still runs and its command is NAME (a reused pid is not ours).
live_pid() {
  local file="$1" name="$2" pid
  [ -r "$file" ] || return 1
  pid="$(tr -dc '0-9' 2>/dev/null <"$file")" || return 1
  [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] || return 1
  [ "$(cat "/proc/$pid/comm")" = "$name" ] || return 1
  grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" && return 1
  echo "$pid"
}

install_packages() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null && command -v sbatch >/dev/null; then
    return
  fi
  log "installing slurm-wlm and munge (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null
}

start_munge() {
  mkdir -p /etc/munge /var/log/munge /run/munge /var/lib/munge
  if [ ! -s /etc/munge/munge.key ]; then
    if command -v mungekey >/dev/null; then mungekey -c -f -k /etc/munge/munge.key; else head -c 1024 /dev/urandom >/etc/munge/munge.key; fi
  fi
  chown -R munge:munge /etc/munge /var/log/munge /run/munge /var/lib/munge
  chmod 0700 /etc/munge
  chmod 0400 /etc/munge/munge.key
  chmod 0755 /run/munge
  if ! live_pid /run/munge/munged.pid munged >/dev/null; then
    log "starting munged"
    su -s /bin/sh munge -c /usr/sbin/munged
    for _ in $(seq 50); do live_pid /run/munge/munged.pid munged >/dev/null && break; sleep 0.1; done
  fi
  munge -n | unmunge >/dev/null || die "munge does not work (see /var/log/munge/munged.log)"
}

write_config() {
  if [ -e "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
    die "$CONF exists and was not written by this script; refusing to change someone else's cluster"
  fi
  mkdir -p "$STATE" /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /etc/slurm
  local cpus
  cpus="$(nproc)"
  local files=()
  for i in $(seq 0 $((FAKE_GPUS - 1))); do
    # a character device like /dev/null: slurmd accepts only devices as GPU files
    [ -c "$STATE/fake-gpu$i" ] || { rm -f "$STATE/fake-gpu$i"; mknod "$STATE/fake-gpu$i" c 1 3; }
    files+=("$STATE/fake-gpu$i")
  done
  local tmp="$CONF.tmp.$$"
  cat >"$tmp" <<EOF
$MARK
# A one-node test cluster: oversubscribed cores so that several jobs run at once, fake GPUs,
# quick node-failure detection (SlurmdTimeout), no accounting daemon (states from squeue and
# scontrol; jobcomp/filetxt keeps a log of finished jobs).
ClusterName=faultline
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# schedule a batch job as it is submitted (the default waits up to 3 s, which a sweep of short
# cells on one node pays for every cell)
SchedulerParameters=batch_sched_delay=0
GresTypes=gpu
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ReturnToService=2
SlurmdTimeout=10
SlurmctldTimeout=30
KillWait=5
MinJobAge=600
NodeName=$HOST CPUs=$cpus RealMemory=4000 Gres=gpu:$FAKE_GPUS State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
  if cmp -s "$tmp" "$CONF"; then rm -f "$tmp"; else
    mv "$tmp" "$CONF"
    CONF_CHANGED=1
  fi
  {
    echo "$MARK"
    echo "NodeName=$HOST Name=gpu File=$(
      IFS=,
      echo "${files[*]}"
    )"
  } >"$GRES_CONF"
}

node_state() { sinfo -h -n "$HOST" -o '%T' 2>/dev/null | head -n1 | tr -d '*~#!%$@^-'; }

start_daemons() {
  if ! live_pid "$STATE/slurmctld.pid" slurmctld >/dev/null; then
    log "starting slurmctld"
    /usr/sbin/slurmctld
  fi
  for _ in $(seq 100); do scontrol ping >/dev/null 2>&1 && break; sleep 0.2; done
  scontrol ping >/dev/null 2>&1 || die "slurmctld does not answer (see /var/log/slurm/slurmctld.log)"
  # daemons that were already running read a changed slurm.conf only when told to
  if [ "$CONF_CHANGED" = 1 ]; then
    log "slurm.conf changed: scontrol reconfigure"
    scontrol reconfigure >/dev/null || die "scontrol reconfigure failed (see /var/log/slurm/slurmctld.log)"
  fi
  if ! live_pid "$STATE/slurmd.pid" slurmd >/dev/null; then
    log "starting slurmd"
    /usr/sbin/slurmd
  fi
  local state=""
  for _ in $(seq 150); do
    state="$(node_state)"
    case "$state" in
      idle | mixed | allocated | completing) break ;;
      down | drained | draining | drain | fail | failing)
        # back from a stopped slurmd (stop-node) or an earlier crash: put the node in service again
        scontrol update nodename="$HOST" state=resume >/dev/null 2>&1 || true
        ;;
    esac
    sleep 0.2
  done
  case "$state" in
    idle | mixed | allocated | completing) log "node $HOST is $state" ;;
    *) die "node $HOST did not come up (state: ${state:-unknown}; see /var/log/slurm/slurmd.log)" ;;
  esac
}

stop_pid() {
  local file="$1" name="$2" pid
  pid="$(live_pid "$file" "$name")" || return 0
  log "stopping $name ($pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do live_pid "$file" "$name" >/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

status() {
  local ok=0 pid
  for d in "munged:/run/munge/munged.pid" "slurmctld:$STATE/slurmctld.pid" "slurmd:$STATE/slurmd.pid"; do
    if pid="$(live_pid "${d#*:}" "${d%%:*}")"; then echo "${d%%:*}: running ($pid)"; else
      echo "${d%%:*}: not running"
      ok=1
    fi
  done
  local state
  state="$(node_state || true)"
  echo "node $HOST: ${state:-unknown}"
  case "$state" in idle | mixed | allocated | completing) ;; *) ok=1 ;; esac
  return $ok
}

case "${1:-}" in
  start)
    need_root
    install_packages
    start_munge
    write_config
    start_daemons
    ;;
  stop)
    need_root
    stop_pid "$STATE/slurmd.pid" slurmd
    stop_pid "$STATE/slurmctld.pid" slurmctld
    stop_pid /run/munge/munged.pid munged
    ;;
  stop-node)
    need_root
    stop_pid "$STATE/slurmd.pid" slurmd
    ;;
  status) status ;;
  *)
    echo "usage: $0 start|stop|status|stop-node" >&2
    exit 2
    ;;
esac
