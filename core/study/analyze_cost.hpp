// `analyze cost` as a study (docs/cost-model.md): the cost model's steady state (core/cost/cost_table.hpp) for a
// model on a topology: a decode step of a full DE group for each batch size (requests per GPU), its parts per
// layer and tokens/s per user and per node; one prefill forward at a token batch and request shape; a step
// profile's figures beside the roofline's, and every public measurement beside the model. The command line prints it
// as a table or its JSON; Python returns the JSON, the same bytes. Also the roofline's own step times as a profile
// (--write-profile).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"
#include "core/cost/cost_table.hpp"
#include "core/cost/public_points.hpp"

namespace dualpath::study {

struct CostQuestion {
  std::string model, topology;
  std::string calibration;       // the topology under a cluster calibration ("": none)
  std::vector<double> batches;   // requests per GPU (empty: 1 8 16 32 64 128 256)
  double context = 32768;
  int de_group = 32, pe_group = 16;
  double prefill_tokens = 16384;
  int64_t cached = 28672, fresh = 4096;
  bool public_points = false;
  std::string profile;           // a step profile to show beside the roofline ("": the model's own, if any)
};

struct CostAnswer {
  ModelSpec model, with_profile;  // the model as given; with --profile's tables when one was given
  Topology topology;
  GroupShape de, pe;
  double context = 0;
  std::vector<DecodePoint> points;
  PrefillPoint prefill;
  bool profiled = false;
  std::string profile_file, profile_label;  // the profile's, when profiled
  std::vector<double> profile_steps;  // the profile's decode step at each batch (empty: no table for the group)
  double profile_forward = -1;        // its prefill forward (-1: none)
  std::vector<PublicPoint> public_points;
  nlohmann::json to_json() const;     // `analyze cost --json`
};

// The shapes checked (InputError naming the option) and the model and topology loaded.
void check_cost_question(const CostQuestion& q);
CostAnswer analyze_cost(const CostQuestion& q);

// The roofline's step times for the question's prefill and decode groups as a step profile document, labelled;
// decode times multiplied by `decode_scale`.
nlohmann::json roofline_profile_of(const CostQuestion& q, const std::string& label, double decode_scale);

}  // namespace dualpath::study
