// Fuzz target: the native trace reader (JSON Lines, traces/FORMAT.md) and the writer on what it accepts: a trace
// that reads back must write and read back to the same bytes. Seeds: traces/example.jsonl and generated traces.
#include <sstream>

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
  });
  return 0;
}
