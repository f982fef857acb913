#!/usr/bin/env bash
# nsdyn sweep on a Slurm cluster (docs/sweep.md, "Across machines: MPI").
# Build nsdyn with -DNSDYN_MPI=ON against the cluster's OpenMPI, then:
#   sbatch docs/sweep-slurm.sh bench/sweep_full_grid.toml
# Rank 0 hands out runs and writes the database; every other rank runs
# them (one run at a time each), so ask for one task per core plus one.
# A job cut short by its time limit loses at most the last second's rows:
# submit the same command again and it goes on where it stopped.
#SBATCH --job-name=nsdyn-sweep
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=32
#SBATCH --time=01:00:00
#SBATCH --output=nsdyn-sweep-%j.log
set -euo pipefail
config=${1:?usage: sbatch docs/sweep-slurm.sh CONFIG [nsdyn sweep options]}
shift
# The database must be on a file system that rank 0's node can write
# (only rank 0 opens it); the kept runs (keep = ...) are written by the
# ranks that ran them, so DIR should be on a shared file system too.
out=${NSDYN_SWEEP_DIR:-$SLURM_SUBMIT_DIR/out/$(basename "$config" .toml)}
# srun starts the ranks with Slurm's PMI (OpenMPI built with Slurm
# support); with a plain OpenMPI, use: mpirun -n "$SLURM_NTASKS" nsdyn ...
srun nsdyn sweep "$config" -o "$out" "$@"
