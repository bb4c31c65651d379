#!/usr/bin/env bash
# Two-node torchrun job on the local test cluster (see slurm_cluster.sh):
# 2 nodes x 2 CPU ranks run allreduce.py; every rank prints sum=10.
#
#   cd tests/integration/harness
#   TORCHRUN=/path/to/venv/bin/torchrun sbatch --wait example_job.sh
#   cat allreduce_<jobid>.out
#
#SBATCH --job-name=allreduce
#SBATCH --nodes=2 --ntasks-per-node=1
#SBATCH --time=00:02:00
#SBATCH --output=%x_%j.out
set -euo pipefail

TORCHRUN=${TORCHRUN:-torchrun}
SCRIPT=${ALLREDUCE:-$SLURM_SUBMIT_DIR/allreduce.py}   # $0 is a spool copy here
MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)
PORT=${RDZV_PORT:-$((20000 + SLURM_JOB_ID % 20000))}
export OMP_NUM_THREADS=1

# One torchrun agent per node. --local_addr must be expanded per task, hence
# the bash -c: all virtual nodes share one hostname, and without it c10d
# orders nodes by agent pid (rank 0 may land on node2) and hands the ranks
# MASTER_ADDR=localhost instead of node1.
# shellcheck disable=SC2016  # expanded by each task's bash, not here
srun --ntasks-per-node=1 --kill-on-bad-exit=1 \
  bash -c 'exec "$0" --local_addr="$SLURMD_NODENAME" "$@"' \
  "$TORCHRUN" --nnodes=2 --nproc_per_node=2 \
  --rdzv_backend=c10d --rdzv_endpoint="$MASTER_ADDR:$PORT" --rdzv_id="$SLURM_JOB_ID" \
  --rdzv_conf=timeout=60 "$SCRIPT"
