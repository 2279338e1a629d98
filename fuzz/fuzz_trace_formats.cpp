// Fuzz target: the Bailian, Azure and BurstGPT readers and converters (traces/FORMAT.md). The first byte picks the
// format (mod 3), the rest is the file. Every accepted Bailian file converts with each request in exactly one round;
// every accepted CSV log gives one trajectory per request kept; every conversion reads back as a native trace with
// its statistics (fuzz/read_back.hpp).
#include "core/workload/bailian.hpp"
#include "core/workload/request_logs.hpp"
#include "fuzz/fuzz_input_file.hpp"
#include "fuzz/read_back.hpp"

namespace {

[[noreturn]] void fail(const char* what, long long a, long long b) {
  std::fprintf(stderr, "fuzz: %s (%lld vs %lld)\n", what, a, b);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int format = data[0] % 3;
  const std::string path = dualpath::fuzz::write_input(data + 1, size - 1, format == 0 ? "bailian.jsonl" : "log.csv");
  dualpath::fuzz::expect_clean([&] {
    if (format == 0) {
      const auto requests = dualpath::read_bailian(path);
      const auto c = dualpath::convert_bailian(requests);
      long long rounds = 0;
      for (const auto& t : c.trace.trajectories) rounds += static_cast<long long>(t.rounds.size());
      if (rounds != static_cast<long long>(requests.size())) fail("requests and rounds differ", rounds, static_cast<long long>(requests.size()));
      dualpath::fuzz::expect_reads_back(c.trace);
      return;
    }
    const auto c = format == 1 ? dualpath::convert_azure(path) : dualpath::convert_burstgpt(path);
    if (static_cast<long long>(c.trace.trajectories.size()) != c.requests - c.dropped)
      fail("rows kept and trajectories differ", static_cast<long long>(c.trace.trajectories.size()), c.requests - c.dropped);
    dualpath::fuzz::expect_reads_back(c.trace);
  });
  return 0;
}
