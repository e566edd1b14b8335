#!/usr/bin/env bash
# Submits a wormcast sweep to Slurm: a job array of SHARDS tasks
# (scripts/sweep.sbatch) and a merge job that runs once every task has
# ended, writing OUT/sweep.csv and OUT/sweep.jsonl (the same bytes as one
# unsharded `wormcast sweep run`). Prints the two job ids.
#
#   scripts/slurm-sweep.sh SWEEP.toml OUT SHARDS [WORMCAST] [-- SBATCH OPTIONS...]
#
# The merge waits for the array with afterany: a task whose jobs found
# something (a deadlock) ends with status 1 but its results count; the
# merge itself fails, naming them, if any job is missing.
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 SWEEP.toml OUT SHARDS [WORMCAST] [-- SBATCH OPTIONS...]" >&2
    exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
config="$(realpath "$1")"
mkdir -p "$2"
out="$(realpath "$2")"
shards="$3"
shift 3
wormcast=wormcast
if [ $# -gt 0 ] && [ "$1" != -- ]; then
    wormcast="$(realpath "$1")"
    shift
fi
[ $# -gt 0 ] && [ "$1" = -- ] && shift
case "$shards" in
    ''|*[!0-9]*|0) echo "$0: SHARDS must be a number of 1 or more, not '$shards'" >&2; exit 2 ;;
esac
array=$(sbatch --parsable "$@" --array="0-$((shards - 1))" --chdir="$out" \
    "$here/sweep.sbatch" "$config" "$out" "$wormcast")
array="${array%%;*}"
merge=$(sbatch --parsable "$@" --dependency="afterany:$array" --job-name=wormcast-merge \
    --chdir="$out" --output="$out/wormcast-merge-%j.out" \
    --wrap "exec '$wormcast' sweep merge --out '$out' '$out'/journal.shard-*-of-$shards.jsonl")
merge="${merge%%;*}"
echo "array $array"
echo "merge $merge"
