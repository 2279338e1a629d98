#include <cmath>
#include <sstream>

#include <gtest/gtest.h>

#include "core/config/input_error.hpp"
#include "core/workload/synth.hpp"
#include "core/workload/trace_io.hpp"
#include "core/workload/trace_stats.hpp"

using namespace dualpath;

namespace {

struct Table2Row {
  const char* profile;
  int64_t max_len;
  double turns, append, gen, total, context;
};
// Table 2 of the paper (§7.4).
const Table2Row kTable2[] = {
    {"32k", 32768, 60, 608, 148, 28639, 17183},
    {"48k", 49152, 106, 474, 172, 42607, 25120},
    {"64k", 65536, 157, 429, 176, 55958, 32721},
};

std::string bytes_of(const Trace& t) {
  std::ostringstream out;
  write_trace(out, t);
  return out.str();
}

}  // namespace

TEST(WorkloadSynth, MatchesTable2Within5PercentAt500Trajectories) {
  for (const auto& row : kTable2) {
    for (uint64_t seed : {1, 2, 3}) {
      const Trace t = generate_trace(synth_profile(row.profile, Table2Reading::Rounds, "x"), 500, seed);
      const TraceStats s = compute_stats(t, "x");
      SCOPED_TRACE(std::string(row.profile) + " seed " + std::to_string(seed));
      EXPECT_NEAR(s.turns / row.turns, 1.0, 0.05) << s.turns;
      EXPECT_NEAR(s.append_per_turn / row.append, 1.0, 0.05) << s.append_per_turn;
      EXPECT_NEAR(s.gen_per_turn / row.gen, 1.0, 0.05) << s.gen_per_turn;
      EXPECT_NEAR(s.total / row.total, 1.0, 0.05) << s.total;
      EXPECT_NEAR(s.context / row.context, 1.0, 0.05) << s.context;
      EXPECT_LE(s.max_total, row.max_len);  // truncation at MaxLen
    }
  }
}

TEST(WorkloadSynth, KvHitRateOf64kIs98Point7) {
  const TraceStats s = compute_stats(generate_trace(synth_profile("64k", Table2Reading::Rounds, "x"), 500, 1), "x");
  EXPECT_NEAR(s.kv_hit_rate, 0.987, 0.003);
}

TEST(WorkloadSynth, SameSeedSameBytesOtherSeedOtherBytes) {
  const SynthParams p = synth_profile("48k", Table2Reading::Rounds, "x");
  EXPECT_EQ(bytes_of(generate_trace(p, 50, 7)), bytes_of(generate_trace(p, 50, 7)));
  EXPECT_NE(bytes_of(generate_trace(p, 50, 7)), bytes_of(generate_trace(p, 50, 8)));
}

TEST(WorkloadSynth, SmallerTraceIsAPrefixOfALargerOne) {
  const SynthParams p = synth_profile("32k", Table2Reading::Rounds, "x");
  const Trace small = generate_trace(p, 130, 3), big = generate_trace(p, 250, 3);
  for (size_t k = 0; k < small.trajectories.size(); ++k) {
    EXPECT_EQ(small.trajectories[k].id, big.trajectories[k].id);
    EXPECT_EQ(small.trajectories[k].total_tokens(), big.trajectories[k].total_tokens());
  }
}

TEST(WorkloadSynth, EveryTrajectoryHasPositiveRoundsWithinMaxLen) {
  for (const auto& row : kTable2) {
    const Trace t = generate_trace(synth_profile(row.profile, Table2Reading::Rounds, "x"), 300, 11);
    for (const auto& tr : t.trajectories) {
      ASSERT_FALSE(tr.rounds.empty());
      for (const auto& r : tr.rounds) {
        EXPECT_GE(r.append, 1);
        EXPECT_GE(r.gen, 1);
      }
      EXPECT_LE(tr.total_tokens(), row.max_len);
    }
  }
}

TEST(WorkloadSynth, UnknownProfileIsAnInputErrorListingTheNames) {
  try {
    synth_profile("128k", Table2Reading::Rounds, "--profile");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--profile: expected a workload profile (32k, 48k, 64k), found '128k'"),
              std::string::npos)
        << e.what();
  }
}
