// Splitting a command's independent runs over processes or machines (issue 21): `--shard I/N` runs the I-th of N
// slices (0-based, as $SLURM_ARRAY_TASK_ID) of a sweep's points, a plan's candidates or each of a capacity search's
// probe sets, into the shared results folder; a later invocation without --shard runs what is missing and merges.
// Every run goes to a staging folder beside its final one and is renamed onto it when it succeeds, so a folder
// that exists is complete, whichever shard wrote it, and a killed shard leaves nothing that counts.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/config/command_values.hpp"

namespace dualpath::cli {

// Shard, parse_shard and in_shard live in core/config/command_values.hpp (the command-line fuzzer reaches them).
using dualpath::in_shard;
using dualpath::parse_shard;
using dualpath::Shard;

// The staging folder a run of `dir` writes into: a sibling named after this host and process, so that concurrent
// shards never share one. Stale staging folders of this host (their process is gone) are removed first.
std::string staging_folder(const std::string& dir);

// Renames a successful run's staging folder onto `dir`. When another shard published `dir` meanwhile, the copy
// is dropped (both ran the same inputs). Returns false when the rename failed for another reason.
bool publish_folder(const std::string& staging, const std::string& dir);

// Writes a JSON file whole or not at all (temp file + rename), for files several shards may write at once.
void write_json_atomically(const std::string& path, const nlohmann::json& j);

}  // namespace dualpath::cli
