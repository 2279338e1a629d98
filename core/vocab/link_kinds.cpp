#include "core/vocab/link_kinds.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace dualpath {

namespace {

std::vector<LinkKind>& table() {
  // Order: sweep.csv's util_* columns and the report's panels follow it.
  static std::vector<LinkKind> kinds = {
      {LinkClass::SnicDown, "snic_down", LinkKind::PerNode, {}, true, false, "utilisation",
       "SNIC read (storage -> node) utilisation per node"},
      {LinkClass::SnicUp, "snic_up", LinkKind::PerNode, {}, false, false, "", ""},
      {LinkClass::CnicRd, "cnic_rd", LinkKind::PerGpu, {}, true, true, "kv_utilisation",
       "CNIC read side, KV traffic: mean over the node's GPUs"},
      {LinkClass::CnicWr, "cnic_wr", LinkKind::PerGpu, {}, true, true, "kv_utilisation",
       "CNIC write side, KV traffic: mean over the node's GPUs"},
      {LinkClass::Dram, "dram", LinkKind::PerNode, {}, true, false, "", ""},
      {LinkClass::Pcie, "pcie", LinkKind::PerGpu, {"_h2d", "_d2h"}, true, false, "", ""},
      {LinkClass::Storage, "storage", LinkKind::PerServer, {}, false, false, "", ""},
  };
  return kinds;
}

// A name a CSV column or a link-name suffix holds with no quoting.
bool plain_text(std::string_view s) {
  for (const char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return !s.empty();
}

}  // namespace

const std::vector<LinkKind>& link_kinds() { return table(); }

LinkClass register_link_kind(LinkKind row) {
  if (!row.name || !plain_text(row.name))
    throw std::invalid_argument("register_link_kind: expected a name of letters, digits, '_' or '-'");
  if (find_link_kind(row.name))
    throw std::invalid_argument(std::string("register_link_kind: a link kind \"") + row.name + "\" exists");
  for (const auto d : row.directions)
    if (!plain_text(d)) throw std::invalid_argument("register_link_kind: expected direction suffixes of plain text");
  auto& kinds = table();
  int next = 0;  // one past the largest class in the table (the built-in rows are not in LinkClass order)
  for (const auto& k : kinds) next = std::max(next, static_cast<int>(k.cls) + 1);
  if (next > 255) throw std::length_error("register_link_kind: at most 256 link kinds");
  row.cls = static_cast<LinkClass>(next);  // LinkClass's underlying type is uint8_t: every value up to 255 is valid
  kinds.push_back(std::move(row));
  return kinds.back().cls;
}

const LinkKind& link_kind(LinkClass c) {
  for (const auto& k : link_kinds())
    if (k.cls == c) return k;
  throw std::logic_error("link kinds: a LinkClass without a row in the table");
}

const LinkKind* find_link_kind(std::string_view name) {
  for (const auto& k : link_kinds())
    if (name == k.name) return &k;
  return nullptr;
}

std::vector<std::string> side_kinds() {
  std::vector<std::string> out;
  for (const auto& k : link_kinds()) {
    if (k.scope == LinkKind::PerServer) continue;
    if (k.directions.empty()) out.emplace_back(k.name);
    for (const auto d : k.directions) out.push_back(std::string(k.name) + std::string(d));
  }
  return out;
}

std::string side_kind_of(std::string_view cls, std::string_view link) {
  const LinkKind* k = find_link_kind(cls);
  if (k)
    for (const auto d : k->directions)
      if (link.size() >= d.size() && link.substr(link.size() - d.size()) == d) return std::string(cls) + std::string(d);
  return std::string(cls);
}

int side_kind_links(std::string_view side_kind, int nodes, int gpus_per_node) {
  for (const auto& k : link_kinds()) {
    if (side_kind.substr(0, std::string_view(k.name).size()) != k.name) continue;
    const std::string_view rest = side_kind.substr(std::string_view(k.name).size());
    bool match = rest.empty() && k.directions.empty();
    for (const auto d : k.directions) match = match || rest == d;
    if (match) return k.scope == LinkKind::PerGpu ? nodes * gpus_per_node : nodes;
  }
  throw std::invalid_argument("link kinds: no side kind " + std::string(side_kind));
}

nlohmann::json link_kinds_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& k : link_kinds()) {
    nlohmann::json dirs = nlohmann::json::array();
    for (const auto d : k.directions) dirs.push_back(std::string(d));
    out.push_back({{"name", k.name},
                   {"per_gpu", k.scope == LinkKind::PerGpu},
                   {"directions", dirs},
                   {"plot_field", k.plot_field},
                   {"plot_title", k.plot_title}});
  }
  return out;
}

}  // namespace dualpath
