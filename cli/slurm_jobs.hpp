// Running a sweep, plan or capacity search as a Slurm job array (issue 21): `--slurm N` writes DIR/slurm/array.sh
// (N array tasks, task i re-running this command line with --shard i/N) and DIR/slurm/merge.sh (the same command
// line without --shard, which runs whatever is still missing and writes the merged results), and with --submit
// submits both through sbatch, the merge depending on every task having ended (afterany). Nothing but the Slurm
// CLI is used. The results folder must be on a filesystem every node sees (docs/slurm.md).
#pragma once

#include <cstddef>
#include <string>

#include "cli/commands.hpp"

namespace dualpath::cli {

struct SlurmArgs {
  size_t shards = 0;  // 0 = no Slurm
  std::string opts;   // extra sbatch options, e.g. "--partition=x --time=1:00:00" (each becomes an #SBATCH line)
  bool submit = false;
};

// --shard, --slurm, --slurm-opt and --submit on a command.
void add_shard_options(CLI::App* cmd, std::string& shard, SlurmArgs& slurm);

// Writes the two scripts for `command` (sweep | plan | capacity) re-running this process's command line, and with
// a.submit runs sbatch. Prints the job ids (or the sbatch commands) and how to watch them.
void submit_slurm_jobs(const std::string& command, const std::string& out_dir, const SlurmArgs& a);

}  // namespace dualpath::cli
