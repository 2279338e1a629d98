#include "core/config/step_profile_file.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/config/input_error.hpp"
#include "core/config/json_file.hpp"
#include "core/config/object_reader.hpp"

namespace dualpath {
namespace {

using nlohmann::json;

std::string num(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

std::vector<double> read_axis(const json& j, const std::string& where, const std::string& key, bool allow_zero) {
  const std::string at = where + "/" + key;
  if (!j.contains(key) || !j.at(key).is_array() || j.at(key).empty())
    throw InputError(at, "expected a non-empty array of increasing numbers");
  std::vector<double> out;
  for (size_t i = 0; i < j.at(key).size(); ++i) {
    const json& v = j.at(key)[i];
    const std::string p = at + "/" + std::to_string(i);
    if (!v.is_number()) throw InputError(p, "expected a number, found " + describe_found(v));
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < 0 || (!allow_zero && x == 0))
      throw InputError(p, std::string("expected a finite number ") + (allow_zero ? ">= 0" : "> 0") + ", found " + num(x));
    if (!out.empty() && x <= out.back())
      throw InputError(p, "expected points in increasing order, found " + num(x) + " after " + num(out.back()));
    out.push_back(x);
  }
  return out;
}

// The longest step time a profile may hold: an hour. A layer's or a decode step's time beyond it is a unit mistake
// (milliseconds written as seconds), and times near the double's range would overflow the sums a forward makes
// (61 layers, thousands of steps) into an infinite timer (issue 68: 1e308-s steps failed mid-run, naming no file).
constexpr double kMaxStepSeconds = 3600;

std::vector<double> read_values(const json& v, const std::string& p, size_t n) {
  if (!v.is_array() || v.size() != n)
    throw InputError(p, "expected an array of " + std::to_string(n) + " seconds (one per axis point), found " +
                            describe_found(v));
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) {
    if (!v[i].is_number() || !std::isfinite(v[i].get<double>()) || v[i].get<double>() <= 0 ||
        v[i].get<double>() > kMaxStepSeconds)
      throw InputError(p + "/" + std::to_string(i), "expected a time in seconds in (0, " + num(kMaxStepSeconds) +
                                                        "], found " + describe_found(v[i]));
    out.push_back(v[i].get<double>());
  }
  return out;
}

ProfileGrid read_grid(const json& j, const std::string& where, const char* a, const char* b, const char* values,
                      bool a_zero, bool b_zero) {
  ProfileGrid g;
  g.a_name = a, g.b_name = b;
  g.a = read_axis(j, where, a, a_zero);
  g.b = read_axis(j, where, b, b_zero);
  const std::string p = where + "/" + values;
  if (!j.contains(values) || !j.at(values).is_array() || j.at(values).size() != g.a.size())
    throw InputError(p, "expected " + std::to_string(g.a.size()) + " rows (one per " + a + " point) of " +
                            std::to_string(g.b.size()) + " seconds (one per " + b + " point)");
  for (size_t i = 0; i < g.a.size(); ++i) g.values.push_back(read_values(j.at(values)[i], p + "/" + std::to_string(i), g.b.size()));
  return g;
}

void check_keys(const json& j, const std::string& where, std::initializer_list<const char*> allowed) {
  if (!j.is_object()) throw InputError(where, "expected an object, found " + describe_found(j));
  for (const auto& item : j.items()) {
    const std::string k = item.key();  // a named copy: clang 14 cannot capture a structured binding
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return k == a; })) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      throw InputError(where + "/" + k, "unknown key; expected one of " + list);
    }
  }
}

int read_group(const json& j, const std::string& where) {
  const std::string p = where + "/group_gpus";
  if (!j.contains("group_gpus") || !j.at("group_gpus").is_number_integer() || j.at("group_gpus").get<int64_t>() < 1 ||
      j.at("group_gpus").get<int64_t>() > 1000000)
    throw InputError(p, "expected the engine group's GPU count, an integer >= 1");
  return static_cast<int>(j.at("group_gpus").get<int64_t>());
}

template <typename T>
std::string groups_of(const std::vector<T>& v) {
  std::string s;
  for (const auto& t : v) s += (s.empty() ? "" : ", ") + std::to_string(t.group_gpus);
  return s.empty() ? "none" : s;
}

}  // namespace

const PrefillProfile* StepProfile::prefill_for(int group_gpus) const {
  for (const auto& p : prefill)
    if (p.group_gpus == group_gpus) return &p;
  return nullptr;
}

const DecodeProfile* StepProfile::decode_for(int group_gpus) const {
  for (const auto& d : decode)
    if (d.group_gpus == group_gpus) return &d;
  return nullptr;
}

std::string StepProfile::prefill_groups() const { return groups_of(prefill); }
std::string StepProfile::decode_groups() const { return groups_of(decode); }

StepProfile read_step_profile(const std::string& path) {
  const json j = read_json_file(path, "step profile");
  const std::string root = path + ": ";
  StepProfile p;
  p.file = path;
  check_keys(j, root, {"name", "label", "description", "sources", "prefill", "decode"});
  if (!j.contains("name") || !j.at("name").is_string() || j.at("name").get<std::string>().empty())
    throw InputError(root + "/name", "expected the profile's name, a non-empty string");
  p.name = j.at("name").get<std::string>();
  if (!j.contains("label") || !j.at("label").is_string() || j.at("label").get<std::string>().empty())
    throw InputError(root + "/label", "expected a label saying where the times come from (measured, derived, fitted)");
  p.label = j.at("label").get<std::string>();
  for (const char* side : {"prefill", "decode"})
    if (!j.contains(side) || !j.at(side).is_array() || j.at(side).empty())
      throw InputError(root + "/" + side, "expected a non-empty array of tables, one per engine-group size");
  for (size_t i = 0; i < j.at("prefill").size(); ++i) {
    const json& t = j.at("prefill")[i];
    const std::string where = root + "/prefill/" + std::to_string(i);
    check_keys(t, where, {"group_gpus", "cached", "fresh", "attention_layer_s", "tokens", "linear_layer_s"});
    PrefillProfile pf;
    pf.group_gpus = read_group(t, where);
    pf.attention = read_grid(t, where, "cached", "fresh", "attention_layer_s", true, false);
    pf.attention.per_b = true;
    pf.linear.x_name = "tokens";
    pf.linear.x = read_axis(t, where, "tokens", false);
    if (!t.contains("linear_layer_s")) throw InputError(where + "/linear_layer_s", "expected one time per tokens point");
    pf.linear.y = read_values(t.at("linear_layer_s"), where + "/linear_layer_s", pf.linear.x.size());
    if (p.prefill_for(pf.group_gpus))
      throw InputError(where + "/group_gpus", "a second prefill table for groups of " + std::to_string(pf.group_gpus));
    p.prefill.push_back(std::move(pf));
  }
  for (size_t i = 0; i < j.at("decode").size(); ++i) {
    const json& t = j.at("decode")[i];
    const std::string where = root + "/decode/" + std::to_string(i);
    check_keys(t, where, {"group_gpus", "batch", "context", "token_s"});
    DecodeProfile d;
    d.group_gpus = read_group(t, where);
    d.token_seconds = read_grid(t, where, "batch", "context", "token_s", false, false);
    if (p.decode_for(d.group_gpus))
      throw InputError(where + "/group_gpus", "a second decode table for groups of " + std::to_string(d.group_gpus));
    p.decode.push_back(std::move(d));
  }
  return p;
}

}  // namespace dualpath
