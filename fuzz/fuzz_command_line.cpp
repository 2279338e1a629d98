// Fuzz target: the strings a user types on the command line (issue 46): `--set key=value`, `--vary KEY=V1,V2`,
// `--fault KIND:key=value,...`, quantities with units, `--shard I/N` and `--pd P:D`. The first byte picks the kind
// (mod 6), the rest is the string. Beyond "InputError or success, nothing else", each kind has a round-trip oracle
// like the file fuzzers': what is accepted, printed the way `dualpath check` prints it, parses back to the same.
//   set:   the effective configuration with the override E1; setting the key to E1's value (a quantity as its SI
//          number with the SI unit) gives E1 again.
//   fault: the same with the whole `faults` list E1 printed back.
//   vary:  KEY=V1,V2 re-joined parses to the same axis; unit: the SI value with its SI unit parses to the same
//          bits; shard and pd: their printed form parses to the same numbers.
#include <cstring>

#include "core/analysis/vary_grid.hpp"
#include "core/config/command_values.hpp"
#include "core/config/faults.hpp"
#include "core/config/loader.hpp"
#include "core/config/overrides.hpp"
#include "core/config/units.hpp"
#include "fuzz/fuzz_input_file.hpp"

namespace {

using namespace dualpath;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz: %s\n", what.c_str());
  std::abort();
}

const char* si_unit(units::Dimension d) {
  switch (d) {
    case units::Dimension::Bytes: return "B";
    case units::Dimension::Bandwidth: return "B/s";
    case units::Dimension::Duration: return "s";
    case units::Dimension::FlopRate: return "FLOPS";
  }
  return "";
}

const std::string& scenario() {
  static const std::string path = std::string(DUALPATH_DATA_DIR) + "/scenarios/default.json";
  return path;
}

nlohmann::json effective(const std::vector<std::string>& overrides) {
  return scenario_to_json(load_scenario(scenario(), overrides));
}

// `check` prints every quantity as its SI number: the text a user would type to give that value back.
std::string reprinted(const nlohmann::json& value, const nlohmann::json& original) {
  if (value.is_number_float() && original.is_string()) {
    try {
      const units::Quantity q = units::parse_quantity(original.get<std::string>());
      return value.dump() + " " + si_unit(q.dimension);
    } catch (const units::UnitError&) {
    }
  }
  return value.dump();
}

void check_set(const std::string& text) {
  const Override o = parse_override(text);
  const nlohmann::json e1 = effective({text});
  const nlohmann::json::json_pointer ptr(o.pointer);
  // A key the dump does not echo (e.g. a model file's path), or a whole section (its quantities print as numbers
  // whose units only the section's schema knows): nothing to print back.
  if (!e1.contains(ptr) || e1.at(ptr).is_structured()) return;
  const std::string again = o.pointer.substr(1) + "=" + reprinted(e1.at(ptr), o.value);
  nlohmann::json e2;
  try {
    e2 = effective({again});
  } catch (const InputError& e) {
    fail("'" + text + "' was accepted, its printed form '" + again + "' is refused: " + e.what());
  }
  if (e1 != e2) fail("'" + text + "' and its printed form '" + again + "' give different configurations");
}

void check_fault(const std::string& text) {
  const nlohmann::json e1 = effective({fault_override(text)});
  nlohmann::json faults = e1.at("faults");
  for (auto& f : faults)  // `at` and `until` are durations: their SI seconds with the unit
    for (const char* key : {"at", "until"})
      if (f.contains(key)) f[key] = f[key].dump() + " s";
  const std::string again = "faults=" + faults.dump();
  nlohmann::json e2;
  try {
    e2 = effective({again});
  } catch (const InputError& e) {
    fail("--fault '" + text + "' was accepted, its printed list is refused: " + e.what());
  }
  if (e1 != e2) fail("--fault '" + text + "' and its printed list give different configurations");
}

void check_vary(const std::string& text) {
  const analysis::VaryAxis a = analysis::parse_vary(text);
  std::string again = a.key + "=";
  for (size_t i = 0; i < a.values.size(); ++i) again += (i ? "," : "") + a.values[i];
  const analysis::VaryAxis b = analysis::parse_vary(again);
  if (a.key != b.key || a.values != b.values) fail("--vary '" + text + "' and '" + again + "' differ");
  (void)analysis::variant_grid({a});
}

void check_unit(const std::string& text) {
  const units::Quantity q = units::parse_quantity(text);
  const std::string again = nlohmann::json(q.value).dump() + " " + si_unit(q.dimension);
  units::Quantity r;
  try {
    r = units::parse_quantity(again);
  } catch (const units::UnitError& e) {
    fail("'" + text + "' was accepted, its SI form '" + again + "' is refused: " + e.what());
  }
  if (r.dimension != q.dimension || std::memcmp(&r.value, &q.value, sizeof(double)) != 0)
    fail("'" + text + "' and its SI form '" + again + "' differ");
}

void check_shard(const std::string& text) {
  const auto s = parse_shard(text);
  if (!s) return;
  const auto t = parse_shard(s->text());
  if (!t || t->index != s->index || t->count != s->count) fail("--shard '" + text + "' does not print back");
}

void check_pd(const std::string& text) {
  const auto [p, d] = parse_pd_ratio(text);
  if (parse_pd_ratio(std::to_string(p) + ":" + std::to_string(d)) != std::pair{p, d}) fail("--pd '" + text + "'");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > 512) return 0;  // a command-line value, not a file
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  dualpath::fuzz::expect_clean([&] {
    try {
      switch (data[0] % 6) {
        case 0: check_set(text); break;
        case 1: check_vary(text); break;
        case 2: check_fault(text); break;
        case 3: check_unit(text); break;
        case 4: check_shard(text); break;
        default: check_pd(text); break;
      }
    } catch (const units::UnitError&) {
      // a unit parser refusal on its own (the loader turns it into an InputError naming the key)
    }
  });
  return 0;
}
