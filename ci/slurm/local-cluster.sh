#!/usr/bin/env bash
# A one-machine Slurm cluster for trying ci/slurm here (and for
# cli/tests/slurm.rs): munged, slurmctld and slurmd from Debian's packages
# (apt-get install slurm-wlm munge), run as plain background daemons: no
# systemd, no cgroups (proctrack/linuxproc, task/none). Everything it writes
# is under DIR: slurm.conf, state, spool, pid and log files, munge's socket.
#
#   ci/slurm/local-cluster.sh start DIR   # prints: export SLURM_CONF=DIR/slurm.conf
#   ci/slurm/local-cluster.sh stop DIR    # cancels its jobs, stops its daemons
#
# Run as root (SlurmUser=root; munged runs as the munge user with the key
# /etc/munge/munge.key, made if missing). The node is this host
# (`hostname -s`) with all its CPUs. Ports: SEEDFALL_SLURM_PORT (slurmctld,
# default 16817) and the next one (slurmd), away from a system Slurm's.
set -euo pipefail

usage() {
    echo "usage: $0 start|stop DIR" >&2
    exit 2
}
[ $# -eq 2 ] || usage
action=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)
conf=$dir/slurm.conf
export SLURM_CONF=$conf

need() {
    for tool in "$@"; do
        command -v "$tool" >/dev/null || {
            echo "local-cluster: $tool is missing: apt-get install slurm-wlm munge" >&2
            exit 2
        }
    done
}

logs() {
    for log in "$dir"/munged.log "$dir"/slurmctld.log "$dir"/slurmd.log "$dir"/*.stdout; do
        [ -s "$log" ] && { echo "--- $log"; tail -n 40 "$log"; }
    done >&2
    return 0
}

# Sends TERM to the daemon in PIDFILE, then KILL after 10 s.
stop_daemon() {
    local pidfile=$1 pid
    [ -s "$pidfile" ] || return 0
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    fi
    rm -f "$pidfile"
}

stop() {
    # Cancel this cluster's jobs first, so no slurmstepd outlives slurmd.
    if [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
        scancel --quiet --user=root 2>/dev/null || true
        for _ in $(seq 100); do
            [ -z "$(squeue --noheader --states=RUNNING,COMPLETING 2>/dev/null)" ] && break
            sleep 0.1
        done
    fi
    stop_daemon "$dir/slurmd.pid"
    stop_daemon "$dir/slurmctld.pid"
    stop_daemon "$dir/munged.pid"
}

start() {
    need munged slurmctld slurmd sbatch squeue scontrol sinfo
    [ "$(id -u)" -eq 0 ] || {
        echo "local-cluster: run as root (the cluster's SlurmUser)" >&2
        exit 2
    }
    id munge >/dev/null 2>&1 || {
        echo "local-cluster: no munge user: apt-get install munge" >&2
        exit 2
    }
    # Unix socket paths are limited to 108 bytes (munge's, slurmd's in the spool).
    [ ${#dir} -le 60 ] || {
        echo "local-cluster: DIR $dir is too long for its Unix sockets (at most 60 characters)" >&2
        exit 2
    }
    stop # a cluster left running in DIR
    rm -rf "$dir/state" "$dir/spool" "$dir/munge" "$dir"/*.log "$dir"/*.stdout
    mkdir -p "$dir/state" "$dir/spool" "$dir/munge"

    # munge: the shared key (a real cluster copies it to every node), a
    # socket of this cluster's own, the daemon as the munge user.
    key=/etc/munge/munge.key
    if [ ! -s "$key" ]; then
        mkdir -p /etc/munge
        if command -v mungekey >/dev/null; then
            mungekey --create --keyfile="$key"
        else
            dd if=/dev/urandom of="$key" bs=1 count=1024 status=none
        fi
    fi
    chown munge:munge /etc/munge "$key"
    chmod 0700 /etc/munge
    chmod 0400 "$key"
    chown munge:munge "$dir/munge"
    chmod 0755 "$dir/munge" # munged: the socket's folder must be searchable by all
    runuser -u munge -- munged --socket="$dir/munge/munge.socket" --key-file="$key" \
        --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
        --seed-file="$dir/munge/munged.seed" </dev/null >"$dir/munged.stdout" 2>&1 || {
        echo "local-cluster: munged did not start" >&2
        cat "$dir/munge/munged.log" >&2 2>/dev/null
        logs
        exit 1
    }
    ln -sf munge/munged.pid "$dir/munged.pid"
    ln -sf munge/munged.log "$dir/munged.log"

    host=$(hostname -s)
    port=${SEEDFALL_SLURM_PORT:-16817}
    cat >"$conf" <<EOF
# Written by ci/slurm/local-cluster.sh: one node, this host; no cgroups, no systemd.
ClusterName=seedfall
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
# Finished jobs stay visible to scontrol for 10 minutes (no accounting database here).
MinJobAge=600
# A merge whose shards failed is cancelled rather than pending for ever.
DependencyParameters=kill_invalid_depend
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1024 State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

    slurmctld -f "$conf" </dev/null >"$dir/slurmctld.stdout" 2>&1 || {
        echo "local-cluster: slurmctld did not start" >&2
        logs
        stop
        exit 1
    }
    slurmd -f "$conf" -N "$host" </dev/null >"$dir/slurmd.stdout" 2>&1 || {
        echo "local-cluster: slurmd did not start" >&2
        logs
        stop
        exit 1
    }
    # Ready when the node is idle (60 s at most).
    for _ in $(seq 300); do
        state=$(sinfo --noheader --nodes="$host" --format=%T 2>/dev/null || true)
        if [ "$state" = idle ]; then
            echo "export SLURM_CONF=$conf"
            return 0
        fi
        sleep 0.2
    done
    echo "local-cluster: node $host not idle after 60 s (state: ${state:-none})" >&2
    logs
    stop
    exit 1
}

case $action in
start) start ;;
stop) stop ;;
*) usage ;;
esac
