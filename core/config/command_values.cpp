#include "core/config/command_values.hpp"

#include "core/config/input_error.hpp"

namespace dualpath {

namespace {

bool digits(const std::string& s) { return !s.empty() && s.size() <= 6 && s.find_first_not_of("0123456789") == std::string::npos; }

}  // namespace

std::optional<Shard> parse_shard(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto bad = [&] {
    return InputError("--shard", "expected I/N with 0 <= I < N (e.g. 0/4, as $SLURM_ARRAY_TASK_ID/N), found '" +
                                     text + "'");
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw bad();
  const std::string i = text.substr(0, slash), n = text.substr(slash + 1);
  if (!digits(i) || !digits(n)) throw bad();
  Shard s{std::stoul(i), std::stoul(n)};
  if (s.count < 1 || s.index >= s.count) throw bad();
  return s;
}

bool in_shard(const std::optional<Shard>& shard, size_t k) { return !shard || k % shard->count == shard->index; }

std::pair<int, int> parse_pd_ratio(const std::string& text) {
  const auto colon = text.find(':');
  auto bad = [&] { return InputError("--pd " + text, "expected P:D with positive integers, e.g. 2:1"); };
  if (colon == std::string::npos) throw bad();
  const std::string p = text.substr(0, colon), d = text.substr(colon + 1);
  if (!digits(p) || !digits(d)) throw bad();
  const int P = std::stoi(p), D = std::stoi(d);
  if (P < 1 || D < 1) throw bad();
  return {P, D};
}

}  // namespace dualpath
