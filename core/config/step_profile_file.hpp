// A step profile file (model.timing = profile, docs/cost-model.md "Profiles") as read and checked: per engine-group
// size, the tables a user fills from their own GPUs (or `dualpath analyze cost --write-profile` fills from the
// roofline):
//   prefill: one request's attention per layer by (cached, fresh) tokens, and the linear/MoE work per layer by fresh
//            tokens per GPU (fixed kernel costs included);
//   decode:  seconds per generated token of a whole group by (requests per GPU, context per request).
// The loader reads it where the scenario names it (model.profile, core/config/sections.cpp); the times between its
// points are the cost model's (core/cost/step_profile.hpp).
#pragma once

#include <string>
#include <vector>

namespace dualpath {

// f(x) on increasing points.
struct ProfileAxisTable {
  std::string x_name;
  std::vector<double> x, y;
};

// f(a, b) on a grid: values[i][j] at (a[i], b[j]).
struct ProfileGrid {
  std::string a_name, b_name;
  // Interpolate values / b and multiply back (a time per unit of b): prefill attention per fresh token, which is
  // linear where the time itself is quadratic (causal attention over the fresh tokens).
  bool per_b = false;
  std::vector<double> a, b;
  std::vector<std::vector<double>> values;
};

struct PrefillProfile {
  int group_gpus = 0;
  ProfileGrid attention;       // a = cached tokens, b = fresh tokens; seconds per layer for one request
  ProfileAxisTable linear;     // x = fresh tokens per GPU; seconds per layer, fixed kernel costs included
};

struct DecodeProfile {
  int group_gpus = 0;
  ProfileGrid token_seconds;   // a = requests per GPU, b = context tokens per request; seconds per generated token
};

struct StepProfile {
  std::string file;  // where it was read from (errors name it)
  std::string name, label;
  std::vector<PrefillProfile> prefill;
  std::vector<DecodeProfile> decode;
  const PrefillProfile* prefill_for(int group_gpus) const;
  const DecodeProfile* decode_for(int group_gpus) const;
  // The group sizes it covers, for error messages ("16, 32").
  std::string prefill_groups() const;
  std::string decode_groups() const;
};

// Reads and validates a profile file: every table's axes strictly increasing and finite, values positive and of
// the axes' shape, one table per group size. Bad input: InputError naming the file and the JSON path.
StepProfile read_step_profile(const std::string& path);

}  // namespace dualpath
