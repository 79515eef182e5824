#!/usr/bin/env bash
# Submits a sharded seedfall sweep to Slurm: an array job of N shards
# (ci/slurm/sweep.sbatch) and, depending on it (afterok), the merge
# (ci/slurm/merge.sbatch). Prints the two job ids as sweep_job=ID and
# merge_job=ID. Options after DIR go to both sbatch calls (--partition,
# --time, --cpus-per-task, --account, ...).
#
#   ci/slurm/submit.sh CONFIG SEEDS N DIR [SBATCH OPTION...]
#   ci/slurm/submit.sh examples/kvlog/seedfall.json 1-10000 16 /shared/sweep-1 --cpus-per-task=8
#
# DIR (made if missing, and empty of shards) gets shard-I.json, each task's
# output sweep-JOB_I.out, merge-JOB.out (the merged summary), merged.json,
# report.html and report.json. DIR, the config's folder and the
# compiled-code cache (SEEDFALL_CACHE_DIR) must be on a filesystem every node
# shares. The jobs get this environment (SEEDFALL: the binary, default
# seedfall on PATH; go on PATH for building the config's packages).
set -euo pipefail

if [ $# -lt 4 ]; then
    echo "usage: $0 CONFIG SEEDS N DIR [SBATCH OPTION...]" >&2
    exit 2
fi
config=$1 seeds=$2 shards=$3 dir=$4
shift 4
case $shards in
'' | *[!0-9]* | 0*)
    echo "submit: N must be a positive number, not \"$shards\"" >&2
    exit 2
    ;;
esac
[ -f "$config" ] || {
    echo "submit: no config $config" >&2
    exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# The jobs may start in another working directory: absolute paths only.
config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
if compgen -G "$dir/shard-*.json" >/dev/null; then
    echo "submit: $dir already holds shard-*.json from another sweep: use an empty DIR" >&2
    exit 2
fi

sweep=$(sbatch --parsable --array="0-$((shards - 1))" --output="$dir/sweep-%A_%a.out" "$@" \
    "$here/sweep.sbatch" "$config" "$seeds" "$shards" "$dir")
sweep=${sweep%%;*}
merge=$(sbatch --parsable --dependency="afterok:$sweep" --output="$dir/merge-%j.out" "$@" \
    "$here/merge.sbatch" "$dir")
merge=${merge%%;*}
echo "sweep_job=$sweep"
echo "merge_job=$merge"
echo "submit: $shards shards of $seeds in job $sweep, then the merge in job $merge: $dir/merge-$merge.out" >&2
