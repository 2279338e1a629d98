// The folders a study's runs write into (issue 21): every run goes to a staging folder beside its final one and is
// renamed onto it when it succeeds, so a folder that exists is complete, whichever process or shard wrote it, and
// a killed run leaves nothing that counts. Result files several shards may write at once are written whole or not
// at all.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace dualpath::study {

// The staging folder a run of `dir` writes into: a sibling named after this host and process, so that concurrent
// shards never share one. Stale staging folders of this host (their process is gone) are removed first.
std::string staging_folder(const std::string& dir);

// Renames a successful run's staging folder onto `dir`. When another shard published `dir` meanwhile, the copy
// is dropped (both ran the same inputs). Returns false when the rename failed for another reason.
bool publish_folder(const std::string& staging, const std::string& dir);

// Writes a JSON file whole or not at all (temp file + rename), for files several shards may write at once.
void write_json_atomically(const std::string& path, const nlohmann::json& j);

}  // namespace dualpath::study
