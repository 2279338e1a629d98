#include "core/config/command_values.hpp"

#include <cstdint>
#include <cstdio>

#include "core/config/input_error.hpp"

namespace dualpath {

namespace {

bool digits(const std::string& s) { return !s.empty() && s.size() <= 6 && s.find_first_not_of("0123456789") == std::string::npos; }

}  // namespace

void check_command_text(const std::string& text, const std::string& where) {
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    // Well-formed UTF-8 (RFC 3629): the shortest form of a code point up to U+10FFFF, no surrogates.
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= text.size() && !(n == 1 && (c < 0x20 || c == 0x7F));
    uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; ok && k < n; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      ok = (b & 0xC0) == 0x80;
      cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr uint32_t kShortest[] = {0, 0, 0x80, 0x800, 0x10000};
    ok = ok && cp >= kShortest[n] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    if (!ok) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", c);
      throw InputError(where, std::string("expected printable UTF-8 text, found the byte ") + hex + " at character " +
                                  std::to_string(i + 1));
    }
    i += n;
  }
}

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

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::vector<std::string> comma_items(const std::string& text, const std::string& where, const std::string& what) {
  auto items = split_commas(text);
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].empty()) throw InputError(where, "expected comma-separated " + what + ", found an empty one");
    for (size_t j = 0; j < i; ++j)
      if (items[j] == items[i]) throw InputError(where, "names \"" + items[i] + "\" twice; give each once");
  }
  return items;
}

}  // namespace dualpath
