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

// Decode batches: fine where the experts' activation curve bends (small batches), coarser above; fractional
// batches occur where requests finish inside a decode chunk.
std::vector<double> batch_axis() {
  std::vector<double> v = {0.25, 0.5, 0.75};
  for (double b = 1; b <= 16; b += 1) v.push_back(b);
  for (double b = 18; b <= 32; b += 2) v.push_back(b);
  for (double b = 36; b <= 64; b += 4) v.push_back(b);
  for (double b = 72; b <= 128; b += 8) v.push_back(b);
  for (double b = 144; b <= 256; b += 16) v.push_back(b);
  for (double b = 288; b <= 1024; b += 32) v.push_back(b);
  return v;
}

// Contexts: every DSA top-k bend (1K, 2K) on the grid; linear in context beyond, where the grid thins out.
std::vector<double> context_axis() {
  return {1, 256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536, 98304,
          131072, 196608, 262144};
}

}  // namespace

nlohmann::json roofline_profile(const CostModel& cost, const Topology& t, const std::vector<int>& pe_groups,
                                const std::vector<int>& de_groups, const std::string& label, double decode_scale) {
  nlohmann::json j;
  j["name"] = cost.model().name + " on " + t.name + " (roofline)";
  j["label"] = label;
  j["description"] = "Step times of dualpath's roofline cost model written as a profile (dualpath analyze cost "
                     "--write-profile); replace the numbers with measured ones, keeping the axes or changing them.";
  const std::vector<double> cached = {0,     256,   512,   1024,  1536,  2048,   3072,   4096,   6144,  8192,
                                      12288, 16384, 24576, 32768, 49152, 65536, 98304, 131072, 196608, 262144};
  const std::vector<double> fresh = {1,    2,    4,    8,     16,    32,    48,    64,    96,    128,
                                     192,  256,  384,  512,   768,   1024,  1536,  2048,  3072,  4096,
                                     6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536, 98304, 131072};
  const std::vector<double> tokens = geometric(1, 1 << 20, 1.5);
  for (int g : pe_groups) {
    nlohmann::json p = {{"group_gpus", g}, {"cached", cached}, {"fresh", fresh}, {"tokens", tokens}};
    for (double c : cached) {
      std::vector<double> row;
      for (double f : fresh) row.push_back(cost.prefill_attention(static_cast<int64_t>(c), static_cast<int64_t>(f), g));
      p["attention_layer_s"].push_back(row);
    }
    for (double x : tokens) p["linear_layer_s"].push_back(cost.prefill_linear(x, g));
    j["prefill"].push_back(p);
  }
  const std::vector<double> batch = batch_axis(), context = context_axis();
  for (int g : de_groups) {
    const GroupShape shape = GroupShape::of(g, t.gpus_per_node);
    nlohmann::json d = {{"group_gpus", g}, {"batch", batch}, {"context", context}};
    for (double b : batch) {
      std::vector<double> row;
      for (double c : context) row.push_back(decode_scale * decode_point(cost, shape, b, c).step);
      d["token_s"].push_back(row);
    }
    j["decode"].push_back(d);
  }
  return j;
}

}  // namespace dualpath
