#!/usr/bin/env bash
# Real local Slurm cluster for the integration tests: Debian's slurm-wlm on
# this one machine, two virtual nodes (node1, node2) on 127.0.0.1, one slurmd
# each, no systemd, no accounting.
#
# Configured as clusters run it: Slurm's default EnforcePartLimits=NO (a job over
# a partition's limits is accepted and pends forever), four fake GPUs per node
# (gres/gpu on character devices cloned from /dev/null), and partitions of
# different limits:
#   batch  node1,node2  default, MaxTime=INFINITE
#   debug  node1        MaxTime=00:30:00 DefaultTime=00:10:00 MaxNodes=1
#   wide   node1,node2  MinNodes=2 MaxTime=02:00:00
#   maint  node2        State=DOWN
#
#   slurm_cluster.sh start   install if missing (root), start, wait until both
#                            nodes are idle; prints `export SLURM_CONF=...`
#   slurm_cluster.sh stop    stop only the daemons this script started
#
# State lives in $AUTOMODEL_LAUNCH_SLURM_DIR (default
# ${TMPDIR:-/tmp}/automodel-launch-slurm), ports in AUTOMODEL_LAUNCH_SLURM_CTLD_PORT and
# AUTOMODEL_LAUNCH_SLURMD_PORT (two clusters can run side by side). `start` is idempotent: on a running
# cluster with the same config it only re-checks the nodes.
set -euo pipefail

DIR=${AUTOMODEL_LAUNCH_SLURM_DIR:-${TMPDIR:-/tmp}/automodel-launch-slurm}
CPUS=${AUTOMODEL_LAUNCH_SLURM_CPUS:-8}   # per node; more than the host has is fine
GPUS=4                                   # fake GPUs (gres/gpu) per node
NODES=(node1 node2)
PARTITION='batch'
CTLD_PORT=${AUTOMODEL_LAUNCH_SLURM_CTLD_PORT:-16917}
SLURMD_PORT=${AUTOMODEL_LAUNCH_SLURMD_PORT:-17101}  # node i listens on SLURMD_PORT+i-1
WAIT=180                                 # a limit: a busy machine starts the daemons sooner

CONF=$DIR/etc/slurm.conf
RUN=$DIR/run
LOG=$DIR/log
export PATH=$PATH:/usr/sbin:/sbin
export SLURM_CONF=$CONF

log() { echo "[slurm_cluster] $*" >&2; }
die() {
  local f
  log "ERROR: $*"
  for f in "$LOG"/slurmctld.log "$LOG"/slurmd-*.log; do
    [ -f "$f" ] || continue
    echo "----- tail of $f -----" >&2
    tail -n 20 "$f" >&2 || true
  done
  exit 1
}

# pid_alive PID NAME: PID runs a process called NAME (not a zombie)
pid_alive() {
  [[ $1 =~ ^[0-9]+$ ]] || return 1
  [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] || return 1
  [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}
alive() { pid_alive "$(cat "$1" 2>/dev/null)" "$2"; }

# stop_pidfile PIDFILE NAME: SIGTERM, wait up to 15 s, then SIGKILL.
# The pid is read once: daemons delete their pid file while still exiting.
stop_pidfile() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  if pid_alive "$pid" "$2"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 150); do pid_alive "$pid" "$2" || break; sleep 0.1; done
    if pid_alive "$pid" "$2"; then
      log "$2 ($pid) ignored SIGTERM: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    log "stopped $2 ($pid)"
  fi
  rm -f "$1"
}

munge_ok() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

install_packages() {
  local b missing=0
  for b in slurmctld slurmd sbatch srun scontrol sinfo sdiag munged munge unmunge; do
    command -v "$b" >/dev/null || missing=1
  done
  [ $missing = 1 ] || return 0
  [ "$(id -u)" = 0 ] || die "slurm-wlm/munge are missing and installing them needs root"
  log "installing slurm-wlm munge (apt-get)"
  mkdir -p "$DIR"
  # policy-rc.d exit 101 keeps the packages' postinst from starting daemons
  local policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    policy=1
  fi
  local rc=0
  { apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      -o Dpkg::Use-Pty=0 slurm-wlm munge; } >"$DIR/apt.log" 2>&1 || rc=$?
  [ $policy = 0 ] || rm -f /usr/sbin/policy-rc.d
  [ $rc = 0 ] || { tail -n 30 "$DIR/apt.log" >&2; die "apt-get install slurm-wlm munge failed"; }
}

write_conf() {
  local mem port=$SLURMD_PORT n
  mem=$(slurmd -C | sed -n '1s/.*RealMemory=\([0-9]*\).*/\1/p')
  mem=$((mem / ${#NODES[@]}))
  cat <<CONF
ClusterName=automodel-launch
SlurmctldHost=localhost
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
MailProg=/bin/true
# the default batch_sched_delay=3 holds every new job back for up to 3 s
SchedulerParameters=batch_sched_delay=0
# Slurm's default: a job over a partition's limits is accepted and pends forever
EnforcePartLimits=NO
GresTypes=gpu
# accept node sizes larger than the real hardware
SlurmdParameters=config_overrides
ReturnToService=2
InactiveLimit=0
MinJobAge=600
KillWait=5
CONF
  for n in "${NODES[@]}"; do
    echo "NodeName=$n NodeHostname=localhost NodeAddr=127.0.0.1 Port=$port CPUs=$CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=$mem Gres=gpu:$GPUS State=UNKNOWN"
    port=$((port + 1))
  done
  echo "PartitionName=$PARTITION Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  echo "PartitionName=debug Nodes=node1 MaxTime=00:30:00 DefaultTime=00:10:00 MaxNodes=1 State=UP"
  echo "PartitionName=wide Nodes=ALL MinNodes=2 MaxTime=02:00:00 State=UP"
  echo "PartitionName=maint Nodes=node2 MaxTime=INFINITE State=DOWN"
}

# gres.conf: gres/gpu needs File= character devices; clones of /dev/null stand in
write_gres_conf() {
  local i n files=()
  mkdir -p "$DIR/dev"
  for i in $(seq 0 $((GPUS - 1))); do
    if [ ! -c "$DIR/dev/nvidia$i" ]; then
      [ "$(id -u)" = 0 ] || die "fake GPU devices need mknod, which needs root"
      mknod "$DIR/dev/nvidia$i" c 1 3 || die "mknod $DIR/dev/nvidia$i failed"
    fi
    files+=("$DIR/dev/nvidia$i")
  done
  {
    echo "AutoDetect=off"
    for n in "${NODES[@]}"; do echo "NodeName=$n Name=gpu File=$(IFS=,; echo "${files[*]}")"; done
  } >"$DIR/etc/gres.conf"
  chmod 0644 "$DIR/etc/gres.conf"
}

all_up() {
  local n
  alive "$RUN/slurmctld.pid" slurmctld || return 1
  for n in "${NODES[@]}"; do alive "$RUN/slurmd-$n.pid" slurmd || return 1; done
}

start_munged() {
  if munge_ok; then
    alive "$RUN/munged.pid" munged || rm -f "$RUN/munged.pid"   # someone else's: leave it
    return 0
  fi
  [ "$(id -u)" = 0 ] || die "munged is not running and starting it needs root"
  if [ ! -s /etc/munge/munge.key ]; then
    install -d -o munge -g munge -m 0700 /etc/munge
    mungekey --create --keyfile=/etc/munge/munge.key
    chown munge:munge /etc/munge/munge.key
    chmod 0400 /etc/munge/munge.key
  fi
  install -d -o munge -g munge -m 0755 /run/munge
  runuser -u munge -- munged || die "munged failed to start (see /var/log/munge/munged.log)"
  for _ in $(seq 50); do munge_ok && break; sleep 0.1; done
  munge_ok || die "munge does not work after starting munged"
  cp /run/munge/munged.pid "$RUN/munged.pid"
  log "started munged ($(cat "$RUN/munged.pid"))"
}

# starting PIDFILE NAME GRACE_END: alive, or no pid file yet before GRACE_END
starting() {
  alive "$1" "$2" && return 0
  [ ! -s "$1" ] && [ "$(date +%s)" -lt "$3" ]
}

wait_ready() {
  local deadline=$(($(date +%s) + WAIT)) idle cycles n
  # a daemon forks before its child writes the pid file: a missing pid file is a
  # daemon still starting for the first 10 s, a dead process named in one is fatal
  local grace=$(($(date +%s) + 10))
  until idle=$(sinfo -h -N -p "$PARTITION" -t idle -o %N 2>/dev/null | wc -l) &&
        [ "$idle" -ge ${#NODES[@]} ]; do
    starting "$RUN/slurmctld.pid" slurmctld "$grace" || die "slurmctld is not running"
    for n in "${NODES[@]}"; do
      starting "$RUN/slurmd-$n.pid" slurmd "$grace" || die "slurmd $n is not running"
    done
    [ "$(date +%s)" -lt "$deadline" ] || { sinfo -N -l >&2 || true; die "nodes not idle after ${WAIT}s"; }
    sleep 0.2
  done
  # the first scheduling cycle runs a few seconds after slurmctld starts; a
  # job submitted before it waits for it
  until cycles=$(sdiag 2>/dev/null | awk '/^Main schedule statistics/{m=1} m&&/Total cycles:/{print $3; exit}') &&
        [ "${cycles:-0}" -ge 1 ]; do
    [ "$(date +%s)" -lt "$deadline" ] || die "slurmctld ran no scheduling cycle within ${WAIT}s"
    sleep 0.2
  done
}

start() {
  local t0=$SECONDS new n port
  install_packages
  mkdir -p "$DIR/etc" "$RUN" "$LOG"
  new=$(mktemp "$DIR/etc/.slurm.conf.XXXXXX")
  write_conf >"$new"
  if [ -f "$CONF" ] && cmp -s "$new" "$CONF" && all_up; then
    rm -f "$new"
    log "already running; re-checking"
  else
    stop_slurm
    mv -f "$new" "$CONF"
    chmod 0755 "$DIR" "$DIR/etc"
    chmod 0644 "$CONF"
    write_gres_conf
    # fresh state every start: no old jobs, node states or job ids
    rm -rf "$DIR/state" "$DIR/spool"
    mkdir -p "$DIR/state"
    for n in "${NODES[@]}"; do mkdir -p "$DIR/spool/$n"; done
    rm -f "$LOG"/*.log
    for port in "$CTLD_PORT" $(seq "$SLURMD_PORT" $((SLURMD_PORT + ${#NODES[@]} - 1))); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        die "port $port on 127.0.0.1 is already in use"
      fi
    done
    # jobs use node names as hosts (MASTER_ADDR=node1), so they must resolve
    local missing=()
    for n in "${NODES[@]}"; do getent hosts "$n" >/dev/null || missing+=("$n"); done
    if [ ${#missing[@]} -gt 0 ]; then
      [ "$(id -u)" = 0 ] || die "${missing[*]} do not resolve; add '127.0.0.1 ${missing[*]}' to /etc/hosts"
      echo "127.0.0.1 ${missing[*]}" >>/etc/hosts
    fi
    start_munged
    slurmctld -f "$CONF" || die "slurmctld failed to start"
    for _ in $(seq 100); do scontrol ping >/dev/null 2>&1 && break; sleep 0.1; done
    alive "$RUN/slurmctld.pid" slurmctld || die "slurmctld died after start"
    for n in "${NODES[@]}"; do slurmd -f "$CONF" -N "$n" || die "slurmd -N $n failed to start"; done
  fi
  wait_ready
  log "up: ${NODES[*]} idle after $((SECONDS - t0))s"
  echo "export SLURM_CONF=$CONF"
}

# child pids of $1, recursively
descendants() {
  local c
  for c in $(ps -eo pid=,ppid= | awk -v p="$1" '$2 == p {print $1}'); do
    echo "$c"
    descendants "$c"
  done
}

stop_slurm() {
  local pf jobs pids pid victims=()
  if [ -f "$CONF" ] && alive "$RUN/slurmctld.pid" slurmctld; then
    jobs=$(timeout 10 squeue -h -o %i 2>/dev/null || true)
    if [ -n "$jobs" ]; then
      log "cancelling jobs: ${jobs//$'\n'/ }"
      # shellcheck disable=SC2086
      timeout 10 scancel $jobs 2>/dev/null || true
      for _ in $(seq 100); do [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.2; done
    fi
  fi
  for pf in "$RUN"/slurmd-*.pid; do
    if [ -e "$pf" ]; then stop_pidfile "$pf" slurmd; fi
  done
  stop_pidfile "$RUN/slurmctld.pid" slurmctld
  # job steps that outlived their slurmd (controller gone, nothing cancelled):
  # only those holding a socket in our spool dir; slurmstepd ignores SIGTERM
  if [ -d "$DIR/spool" ] && command -v ss >/dev/null; then
    pids=$(ss -xlpn 2>/dev/null | grep -F "$DIR/spool/" | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u) || true
    for pid in $pids; do
      pid_alive "$pid" slurmstepd || continue
      # shellcheck disable=SC2207
      victims+=("$pid" $(descendants "$pid"))
    done
    if [ ${#victims[@]} -gt 0 ]; then
      log "killing leftover job steps: ${victims[*]}"
      kill -KILL "${victims[@]}" 2>/dev/null || true
    fi
  fi
}

stop() {
  stop_slurm
  stop_pidfile "$RUN/munged.pid" munged
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
