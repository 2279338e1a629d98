#include "core/cost/profile_writer.hpp"

#include "core/cost/cost_table.hpp"

namespace dualpath {
namespace {

// Points from `from` to `to`, growing by `step` (a geometric grid), with `from` and `to` included.
std::vector<double> geometric(double from, double to, double step) {
  std::vector<double> v;
  for (double x = from; x < to * (1 - 1e-9); x *= step) v.push_back(x);
  v.push_back(to);
  return v;
}

}  // namespace

ProfileAxes ProfileAxes::fine() {
  ProfileAxes a;
  a.cached = {0, 256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536,
              98304, 131072, 196608, 262144};
  a.fresh = {1,    2,    4,    8,    16,   32,    48,    64,    96,    128,   192,   256,   384,   512,  768,
             1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536, 98304, 131072};
  a.tokens = geometric(1, 1 << 20, 1.5);
  // Decode batches: fine where the experts' activation curve bends (small batches), coarser above; fractional
  // batches occur where requests finish inside a decode chunk.
  a.batch = {0.25, 0.5, 0.75};
  for (double b = 1; b <= 16; b += 1) a.batch.push_back(b);
  for (double b = 18; b <= 32; b += 2) a.batch.push_back(b);
  for (double b = 36; b <= 64; b += 4) a.batch.push_back(b);
  for (double b = 72; b <= 128; b += 8) a.batch.push_back(b);
  for (double b = 144; b <= 256; b += 16) a.batch.push_back(b);
  for (double b = 288; b <= 1024; b += 32) a.batch.push_back(b);
  // Contexts: every DSA top-k bend (1K, 2K) on the grid; linear in context beyond, where the grid thins out.
  a.context = {1, 256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536,
               98304, 131072, 196608, 262144};
  return a;
}

ProfileAxes ProfileAxes::coarse() {
  ProfileAxes a;
  a.cached = {0, 2048, 8192, 32768, 131072};
  a.fresh = {16, 256, 2048, 16384};
  a.tokens = {16, 256, 2048, 16384, 65536};
  a.batch = {1, 8, 32, 128, 256};
  a.context = {1024, 4096, 32768, 131072};
  return a;
}

nlohmann::json write_step_profile(const std::string& name, const std::string& label, const std::string& description,
                                  const std::vector<int>& pe_groups, const std::vector<int>& de_groups,
                                  const ProfileAxes& axes, const ProfileTimes& times) {
  nlohmann::json j;
  j["name"] = name;
  j["label"] = label;
  j["description"] = description;
  for (int g : pe_groups) {
    nlohmann::json p = {{"group_gpus", g}, {"cached", axes.cached}, {"fresh", axes.fresh}, {"tokens", axes.tokens}};
    for (double c : axes.cached) {
      std::vector<double> row;
      for (double f : axes.fresh)
        row.push_back(times.prefill_attention(static_cast<int64_t>(c), static_cast<int64_t>(f), g));
      p["attention_layer_s"].push_back(row);
    }
    for (double x : axes.tokens) p["linear_layer_s"].push_back(times.prefill_linear(x, g));
    j["prefill"].push_back(p);
  }
  for (int g : de_groups) {
    nlohmann::json d = {{"group_gpus", g}, {"batch", axes.batch}, {"context", axes.context}};
    for (double b : axes.batch) {
      std::vector<double> row;
      for (double c : axes.context) row.push_back(times.decode_token(b, c, g));
      d["token_s"].push_back(row);
    }
    j["decode"].push_back(d);
  }
  return j;
}

nlohmann::json roofline_profile(const CostModel& cost, const Topology& t, const std::vector<int>& pe_groups,
                                const std::vector<int>& de_groups, const std::string& label, double decode_scale) {
  ProfileTimes times;
  times.prefill_attention = [&](int64_t c, int64_t f, int g) { return cost.prefill_attention(c, f, g); };
  times.prefill_linear = [&](double x, int g) { return cost.prefill_linear(x, g); };
  times.decode_token = [&](double b, double c, int g) {
    return decode_scale * decode_point(cost, GroupShape::of(g, t.gpus_per_node), b, c).step;
  };
  return write_step_profile(cost.model().name + " on " + t.name + " (roofline)", label,
                            "Step times of dualpath's roofline cost model written as a profile (dualpath analyze cost "
                            "--write-profile); replace the numbers with measured ones, keeping the axes or changing them.",
                            pe_groups, de_groups, ProfileAxes::fine(), times);
}

}  // namespace dualpath
