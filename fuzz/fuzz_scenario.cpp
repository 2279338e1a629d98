// Fuzz target: the scenario loader (JSON reader, model/topology references, every section's checks, the derived
// configuration `dualpath check` prints, and the weights-fit rule). Seeds: scenarios/*.json.
#include "core/config/loader.hpp"
#include "core/cost/cost_model.hpp"
#include "fuzz/fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = dualpath::fuzz::write_input(data, size, "scenarios/input.json");
  dualpath::fuzz::expect_clean([&] {
    const dualpath::Scenario s = dualpath::load_scenario(path);
    dualpath::check_weights_fit(s);
    (void)dualpath::scenario_to_json(s).dump();
  });
  return 0;
}
