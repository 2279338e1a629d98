#include <cmath>
#include <sstream>

#include <gtest/gtest.h>

#include "core/config/input_error.hpp"
#include "core/workload/synth.hpp"
#include "core/workload/synth_calibrate.hpp"
#include "core/workload/table2.hpp"
#include "core/workload/trace_io.hpp"
#include "core/workload/trace_stats.hpp"

using namespace dualpath;

namespace {

std::string bytes_of(const Trace& t) {
  std::ostringstream out;
  write_trace(out, t);
  return out.str();
}

}  // namespace

TEST(WorkloadSynth, MatchesTable2Within5PercentAt500Trajectories) {
  for (const auto& row : table2_rows()) {
    for (uint64_t seed : {1, 2, 3}) {
      const Trace t = generate_trace(synth_profile(row.profile, Table2Reading::Rounds, "x"), 500, seed);
      const TraceStats s = compute_stats(t, "x");
      SCOPED_TRACE(row.profile + " seed " + std::to_string(seed));
      EXPECT_NEAR(s.turns / row.values[kColTurns], 1.0, 0.05) << s.turns;
      EXPECT_NEAR(s.append_per_turn / row.values[kColAppend], 1.0, 0.05) << s.append_per_turn;
      EXPECT_NEAR(s.gen_per_turn / row.values[kColGen], 1.0, 0.05) << s.gen_per_turn;
      EXPECT_NEAR(s.total / row.values[kColTotal], 1.0, 0.05) << s.total;
      EXPECT_NEAR(s.context / row.values[kColContext], 1.0, 0.05) << s.context;
      EXPECT_LE(s.max_total, row.max_len);  // truncation at MaxLen
    }
  }
}

// The other reading (docs/workload.md §1): every column a plain mean over trajectories.
TEST(WorkloadSynth, TrajectoryReadingMatchesTable2Within5PercentAt500Trajectories) {
  for (const auto& row : table2_rows()) {
    for (uint64_t seed : {1, 2, 3}) {
      const TraceStats s =
          compute_stats(generate_trace(synth_profile(row.profile, Table2Reading::Trajectories, "x"), 500, seed), "x");
      const Table2Values v = table2_columns(s, Table2Reading::Trajectories);
      SCOPED_TRACE(row.profile + " seed " + std::to_string(seed));
      for (int c = 0; c < kTable2Columns; ++c)
        EXPECT_NEAR(v[c] / row.values[c], 1.0, 0.05) << table2_column_names()[c] << " " << v[c];
      EXPECT_LE(s.max_total, row.max_len);
    }
  }
}

// The two readings give different workloads: same tokens per trajectory, ~1.7x the rounds at 64K, each with a
// smaller append, so a higher token hit rate (the trajectory reading is the more I/O-heavy one).
TEST(WorkloadSynth, TrajectoryReadingHasMoreSmallerRoundsAt64k) {
  const TraceStats r = compute_stats(generate_trace(synth_profile("64k", Table2Reading::Rounds, "x"), 500, 1), "x");
  const TraceStats t =
      compute_stats(generate_trace(synth_profile("64k", Table2Reading::Trajectories, "x"), 500, 1), "x");
  EXPECT_NEAR(t.total / r.total, 1.0, 0.03);
  EXPECT_NEAR(static_cast<double>(t.rounds) / static_cast<double>(r.rounds), 1.7, 0.1);
  EXPECT_GT(t.kv_hit_rate, 0.993);
  EXPECT_LT(r.kv_hit_rate, 0.990);
}

// Newton recovers the trajectory reading's levers from the round reading's (a start ~30-50% away on three
// levers) on a small sample; the stored levers were solved at 24 seeds x 500, so they agree within sampling.
TEST(WorkloadSynth, CalibrationRecoversTheStoredLevers) {
  const Table2Row& row = table2_row("32k", "x");
  CalibrationOptions o;
  o.seeds = 4;
  o.trajectories = 300;
  o.tolerance = 0.005;
  const CalibrationResult res =
      calibrate_synth(synth_profile("32k", Table2Reading::Rounds, "x"), Table2Reading::Trajectories, row, o);
  EXPECT_LT(res.worst_error, 0.01);
  EXPECT_GE(res.iterations, 2);  // it had to move
  const SynthParams stored = synth_profile("32k", Table2Reading::Trajectories, "x");
  EXPECT_NEAR(res.params.turns_median / stored.turns_median, 1.0, 0.08);
  EXPECT_NEAR(res.params.append_median / stored.append_median, 1.0, 0.15);
  EXPECT_NEAR(res.params.first_median / stored.first_median, 1.0, 0.08);
  EXPECT_NEAR(res.params.gen_median / stored.gen_median, 1.0, 0.05);
}

TEST(WorkloadSynth, UnknownReadingIsAnInputError) {
  try {
    table2_reading("requests", "--reading");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--reading: expected a Table 2 reading (rounds, trajectories), found 'requests'"),
              std::string::npos)
        << e.what();
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
  for (const auto& row : table2_rows()) {
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
