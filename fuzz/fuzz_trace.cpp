// Fuzz target: the native trace reader (JSON Lines, traces/FORMAT.md) and the writer on what it accepts: a trace
// that reads back must write and read back to the same bytes. A small accepted trace is then replayed through the
// agents' shared-prefix ancestry and the content-addressed block index (the zero-service hit rate), whose hits
// may never exceed the prompts. Seeds: traces/example.jsonl, traces/shared-prefix.jsonl and generated traces.
#include <sstream>

#include "core/kv/zero_service_reuse.hpp"
#include "core/workload/agents.hpp"
#include "core/workload/trace_io.hpp"
#include "fuzz/fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dualpath::fuzz::expect_clean([&] {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    const dualpath::Trace t = dualpath::parse_trace(in, "fuzz");
    std::ostringstream once, twice;
    dualpath::write_trace(once, t);
    std::istringstream again(once.str());
    dualpath::write_trace(twice, dualpath::parse_trace(again, "fuzz-rewritten"));
    if (once.str() != twice.str()) {
      std::fprintf(stderr, "fuzz: the written trace does not read back to the same bytes\n");
      std::abort();
    }
    int64_t tokens = 0;
    for (const auto& tr : t.trajectories) tokens += tr.total_tokens();
    if (tokens > 2'000'000) return;  // the index holds a state per block: keep each run small
    dualpath::WorkloadSpec spec;
    spec.source = dualpath::WorkloadSource::File;
    const auto reuse = dualpath::zero_service_reuse(dualpath::make_agents(t, spec), 16);
    if (!(reuse.hit_tokens <= reuse.prompt_tokens) || !(reuse.shared_hit_tokens <= reuse.hit_tokens)) {
      std::fprintf(stderr, "fuzz: more hits than prompt tokens\n");
      std::abort();
    }
  });
  return 0;
}
