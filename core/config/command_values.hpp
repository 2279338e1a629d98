// Small values given on the command line that are parsed the same way wherever they appear, kept in the core so
// that the command-line fuzzer (fuzz/fuzz_command_line.cpp) reaches them: `--shard I/N` and `--pd P:D`.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dualpath {

// `--shard I/N` (issue 21): the I-th of N slices of a command's independent runs.
struct Shard {
  size_t index = 0, count = 1;
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// "I/N" with 0 <= I < N (N >= 1, at most 6 digits each); "" = no shard. Throws InputError("--shard", ...) otherwise.
std::optional<Shard> parse_shard(const std::string& text);

// Whether item k (in the command's fixed order) belongs to the shard: items are dealt round-robin, so shards get
// a similar mix of cheap and expensive runs. Without a shard, every item is one's own.
bool in_shard(const std::optional<Shard>& shard, size_t k);

// Text typed on the command line (`--set`, `--vary`, `--fault`): valid UTF-8 without control bytes, since it ends
// up in JSON (a stray byte once ended `run --fault` with a JSON library error). Throws InputError(where, ...).
void check_command_text(const std::string& text, const std::string& where);

// A comma-separated list typed on the command line (--policy basic,dualpath, --only 1,3, --node-hour-cost
// a=1,b=2): its items in order, "" giving none. One rule for every list: an empty item (`basic,,dualpath`, a
// trailing comma) is refused, never dropped, and so is an item given twice: InputError(where, ...).
std::vector<std::string> comma_items(const std::string& text, const std::string& where, const std::string& what);
// The same items with the empty ones kept, for a caller that names its own error ("" gives none).
std::vector<std::string> split_commas(const std::string& text);

// `--pd P:D` (analyze bandwidth): positive integers of at most 6 digits each. Throws InputError("--pd TEXT", ...).
std::pair<int, int> parse_pd_ratio(const std::string& text);

}  // namespace dualpath
