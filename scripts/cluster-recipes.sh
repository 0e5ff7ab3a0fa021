#!/usr/bin/env bash
# Runs the README's cluster recipes for real on this machine and checks them against one plain run:
#  1. Slurm: a single-node cluster (munged, slurmctld and slurmd on localhost, private config,
#     sockets, ports and state under a scratch folder), a job array of N shards
#     (`--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`) into one output folder, then
#     `cadenza index` as a dependent job; the daemons are started and stopped by this script.
#  2. GNU parallel: the same N shards as `parallel ... ::: 1..N` on localhost.
# Each shared folder must equal the plain run's (diff -r: same report files, same bytes).
# Needs root and Debian's slurmctld, slurmd, slurm-client, munge and parallel (apt-get install).
# Usage: scripts/cluster-recipes.sh [CATALOG-FOLDER] [N] > Reports/cluster-recipes.md
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CATALOG=$(cd "${1:-$ROOT/Fixtures}" && pwd)
N=${2:-3}
ANALYSES=loudness,rhythm,key
WORK=$(mktemp -d /tmp/cadenza-cluster.XXXXXX)
chmod 755 "$WORK"
swift build -c release --package-path "$ROOT" >&2
C="$ROOT/.build/release/cadenza"
HOST=$(hostname -s)
export SLURM_CONF="$WORK/slurm.conf"

cleanup() {
  for pidfile in "$WORK/slurmd.pid" "$WORK/slurmctld.pid" "$WORK/munged.pid"; do
    if [ -s "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; fi
  done
  sleep 1
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "# Cluster recipes, run for real"
echo
echo "Made by \`scripts/cluster-recipes.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'): catalog \`${CATALOG#$ROOT/}\`"
echo "($(find "$CATALOG" -type f ! -name '.*' | wc -l) files), $N shards, \`--for $ANALYSES\`, release build, host \`$HOST\`, $(nproc) cores."
echo

# The reference: one plain run.
"$C" analyze --for "$ANALYSES" --no-progress --output "$WORK/plain" "$CATALOG" 2> "$WORK/plain.err" || true
echo "Plain run: $(tail -1 "$WORK/plain.err")"
echo

# --- 1. Slurm -------------------------------------------------------------------------------
mkdir -p "$WORK/state" "$WORK/spool" "$WORK/munge"
chmod 700 "$WORK/munge"
dd if=/dev/urandom of="$WORK/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$WORK/munge/munge.key"
munged --force --socket="$WORK/munge/munge.socket" --key-file="$WORK/munge/munge.key" \
  --pid-file="$WORK/munged.pid" --log-file="$WORK/munge/munged.log" --seed-file="$WORK/munge/munged.seed"
MEM=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
cat > "$SLURM_CONF" <<EOF
ClusterName=cadenza
SlurmctldHost=$HOST
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$WORK/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=$HOST CPUs=$(nproc) RealMemory=$MEM State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 1 60); do
  sinfo -h -o '%T' 2>/dev/null | grep -Eq '^(idle|mixed|allocated)' && break
  sleep 1
done
echo "## Slurm $(sinfo --version | awk '{print $2}') job array"
echo
echo "Node state before submitting: \`$(sinfo -h -o '%N %T %c CPUs' 2>&1)\`"
echo
cat > "$WORK/catalog.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=cadenza --array=1-$N --cpus-per-task=1 --mem=500M --output=$WORK/slurm-%A_%a.out
"$C" analyze --for $ANALYSES --jobs "\$SLURM_CPUS_PER_TASK" --progress-interval 60 \\
  --shard "\$SLURM_ARRAY_TASK_ID/\$SLURM_ARRAY_TASK_COUNT" --output "$WORK/slurm-reports" "$CATALOG"
EOF
array=$(sbatch --parsable "$WORK/catalog.sbatch")
index=$(sbatch --parsable --dependency="afterany:$array" --output="$WORK/slurm-index.out" \
  --wrap "\"$C\" index \"$WORK/slurm-reports\" --db \"$WORK/slurm.sqlite\"")
for _ in $(seq 1 600); do
  [ -z "$(squeue -h -j "$array,$index" 2>/dev/null)" ] && break
  sleep 1
done
echo '```'
echo "\$ sbatch catalog.sbatch   # job $array"
for ((k = 1; k <= N; k++)); do echo "shard $k/$N: $(tail -1 "$WORK/slurm-${array}_$k.out" 2>/dev/null || echo 'no output')"; done
echo "\$ sbatch --dependency=afterany:$array --wrap 'cadenza index ...'   # job $index"
cat "$WORK/slurm-index.out" 2>/dev/null | sed "s|$WORK/||g"
echo '```'
echo
if diff -r "$WORK/plain" "$WORK/slurm-reports" > "$WORK/slurm.diff" 2>&1; then
  echo "**Slurm: the shared folder equals the plain run**, byte for byte ($(find "$WORK/slurm-reports" -name '*.json' | wc -l) reports)."
else
  echo "**Slurm: DIFFERENT** from the plain run: $(head -5 "$WORK/slurm.diff")"
fi
rows=$(sqlite3 "$WORK/slurm.sqlite" 'select count(*) from tracks' 2>/dev/null || echo '?')
echo "Index rows: $rows."
echo

# --- 2. GNU parallel -------------------------------------------------------------------------
echo "## GNU parallel $(parallel --version | head -1 | awk '{print $3}')"
echo
export C ANALYSES CATALOG WORK N
parallel --will-cite --line-buffer -j 2 \
  '"$C" analyze --for "$ANALYSES" --jobs 1 --no-progress --shard {}/"$N" --output "$WORK/parallel-reports" "$CATALOG" 2>&1 | tail -1 | sed "s|^|shard {}/$N: |"' \
  ::: $(seq 1 "$N") > "$WORK/parallel.out"
"$C" index "$WORK/parallel-reports" --db "$WORK/parallel.sqlite" >> "$WORK/parallel.out"
echo '```'
sed "s|$WORK/||g" "$WORK/parallel.out"
echo '```'
echo
if diff -r "$WORK/plain" "$WORK/parallel-reports" > "$WORK/parallel.diff" 2>&1; then
  echo "**GNU parallel: the shared folder equals the plain run**, byte for byte ($(find "$WORK/parallel-reports" -name '*.json' | wc -l) reports)."
else
  echo "**GNU parallel: DIFFERENT** from the plain run: $(head -5 "$WORK/parallel.diff")"
fi
