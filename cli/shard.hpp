// Splitting a command's independent runs over processes or machines (issue 21): `--shard I/N` runs the I-th of N
// slices (0-based, as $SLURM_ARRAY_TASK_ID) of a sweep's points, a plan's candidates or each of a capacity search's
// probe sets, into the shared results folder; a later invocation without --shard runs what is missing and merges.
// The staging and publishing of each run is the study layer's (core/study/run_folders.hpp).
#pragma once

#include "core/config/command_values.hpp"
#include "core/study/run_folders.hpp"

namespace dualpath::cli {

// Shard, parse_shard and in_shard live in core/config/command_values.hpp (the command-line fuzzer reaches them).
using dualpath::in_shard;
using dualpath::parse_shard;
using dualpath::Shard;
using study::publish_folder;
using study::staging_folder;
using study::write_json_atomically;

}  // namespace dualpath::cli
