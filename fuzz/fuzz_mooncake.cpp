// Fuzz target: the Mooncake reader and the turn-chain conversion (traces/FORMAT.md): every accepted file converts
// without error, every request lands in exactly one trajectory round, and the conversion reads back as a native
// trace with its statistics (fuzz/read_back.hpp), in both reuse forms. Seeds: a few lines of the format.
#include "core/workload/mooncake.hpp"
#include "fuzz/fuzz_input_file.hpp"
#include "fuzz/read_back.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = dualpath::fuzz::write_input(data, size, "mooncake.jsonl");
  dualpath::fuzz::expect_clean([&] {
    const auto requests = dualpath::read_mooncake(path);
    const auto c = dualpath::convert_mooncake(requests);
    int64_t rounds = 0;
    for (const auto& t : c.trace.trajectories) rounds += static_cast<int64_t>(t.rounds.size());
    if (rounds != static_cast<int64_t>(requests.size())) {
      std::fprintf(stderr, "fuzz: %lld requests became %lld rounds\n", static_cast<long long>(requests.size()),
                   static_cast<long long>(rounds));
      std::abort();
    }
    dualpath::fuzz::expect_reads_back(c.trace);
    dualpath::fuzz::expect_reads_back(dualpath::convert_mooncake(requests, dualpath::ReuseForm::Hashes).trace);
  });
  return 0;
}
