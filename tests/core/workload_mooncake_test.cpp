#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>

#include "core/config/input_error.hpp"
#include "core/workload/mooncake.hpp"
#include "workload_test_util.hpp"

using namespace dualpath;

namespace {

MooncakeRequest req(double ts, int64_t in, int64_t out, std::vector<int64_t> ids, int64_t line) {
  return MooncakeRequest{ts, in, out, std::move(ids), line};
}

std::string error_of(const std::string& text) {
  const auto path = test::write_temp("mc_err.jsonl", text);
  try {
    read_mooncake(path);
  } catch (const InputError& e) {
    const std::string msg = e.what();
    return msg.substr(path.size());  // drop the temp path, keep ":line: what"
  }
  return "";
}

}  // namespace

// Block 0 is the system prompt every request shares; it must never link two requests.
TEST(WorkloadMooncake, RebuildsChainsFromFullBlockPrefixes) {
  const std::vector<MooncakeRequest> reqs = {
      req(0, 1100, 100, {0, 1, 2}, 1),          // A1: full blocks [0,1]
      req(0, 700, 50, {0, 9}, 2),               // X: shares only block 0 with A -> own chain
      req(3000, 1600, 80, {0, 1, 3, 4}, 3),     // A2: starts with A1's full blocks -> continues A1
      req(3000, 1600, 80, {0, 1, 3, 4}, 4),     // retry of A2: matches A2's full blocks but is not longer -> branch
      req(6000, 2100, 10, {0, 1, 3, 5, 6}, 5),  // A3: longest match [0,1,3]; the most recent free match (the
                                                // retry) is the conversation's latest state -> continues it
  };
  const MooncakeConversion c = convert_mooncake(reqs);
  EXPECT_EQ(c.common_prefix_blocks, 1);
  ASSERT_EQ(c.chains, 3);
  EXPECT_EQ(c.multi_turn_chains, 2);
  EXPECT_EQ(c.continued_requests, 2);
  const auto& a = c.trace.trajectories[0];
  EXPECT_EQ(a.id, "mc-1");
  ASSERT_EQ(a.rounds.size(), 2u);
  EXPECT_EQ(a.rounds[0].append, 1100);
  EXPECT_EQ(a.rounds[1].append, 1600 - 1200);  // new input beyond A1's input + output
  EXPECT_EQ(c.trace.trajectories[1].rounds.size(), 1u);
  const auto& b = c.trace.trajectories[2];
  EXPECT_EQ(b.id, "mc-4");
  ASSERT_EQ(b.rounds.size(), 2u);
  EXPECT_EQ(b.rounds[1].append, 2100 - 1680);
  EXPECT_EQ(b.rounds[1].gen, 10);
  // Buckets: t=0 holds 2 requests over 3 s, t=3000 holds 2, the last bucket uses the median width (3 s).
  EXPECT_DOUBLE_EQ(a.arrival, 0.0);
  EXPECT_DOUBLE_EQ(c.trace.trajectories[1].arrival, 1.5);
  EXPECT_DOUBLE_EQ(b.arrival, 4.5);
  EXPECT_DOUBLE_EQ(a.rounds[0].think, 3.0);  // A1 at 0 s, A2 at 3 s
  EXPECT_DOUBLE_EQ(b.rounds[0].think, 1.5);  // retry at 4.5 s, A3 at 6 s
  EXPECT_DOUBLE_EQ(b.rounds[1].think, 0.0);
  EXPECT_EQ(c.clamped_appends, 0);
  // Reused tokens: X 512 (block 0), A2 1024, retry 1600 (all blocks seen), A3 1536; inputs sum 7100.
  EXPECT_NEAR(c.reusable_share, (512.0 + 1024 + 1600 + 1536) / 7100.0, 1e-12);
  // Chains that start with content an earlier chain had name it: X shares the system prompt block with A1; the
  // retry shares all of A2's input, which is the first 1,600 tokens of A1's chain.
  EXPECT_EQ(c.shared_prefix_chains, 2);
  EXPECT_TRUE(a.parent.empty());
  EXPECT_EQ(c.trace.trajectories[1].parent, "mc-1");
  EXPECT_EQ(c.trace.trajectories[1].shared, 512);
  EXPECT_EQ(c.trace.trajectories[1].parent_index, 0);
  EXPECT_EQ(b.parent, "mc-1");
  EXPECT_EQ(b.shared, 1600);
}

// Many conversations that open with the same long document: each converted chain names the first one as its
// parent for the document's whole blocks, so a replay can reuse them (they were lost before issue 18).
TEST(WorkloadMooncake, CrossSessionPrefixesBecomeParentLinks) {
  std::vector<MooncakeRequest> reqs;
  for (int64_t k = 0; k < 6; ++k)  // 4 document blocks (ids 10-13) then one block of the session's own
    reqs.push_back(req(0, 2500, 10, {10, 11, 12, 13, 100 + k}, k + 1));
  const MooncakeConversion c = convert_mooncake(reqs);
  ASSERT_EQ(c.chains, 6);
  EXPECT_EQ(c.common_prefix_blocks, 4);
  EXPECT_EQ(c.shared_prefix_chains, 5);
  for (size_t k = 1; k < 6; ++k) {
    EXPECT_EQ(c.trace.trajectories[k].parent, "mc-1") << k;
    EXPECT_EQ(c.trace.trajectories[k].shared, 4 * 512) << k;
  }
  EXPECT_NEAR(c.reusable_share, 5 * 2048.0 / (6 * 2500.0), 1e-12);
}

TEST(WorkloadMooncake, ShrinkingContinuationIsClampedToOneToken) {
  const std::vector<MooncakeRequest> reqs = {
      req(0, 1024, 900, {0, 1}, 1),          // block-aligned: both ids are full blocks
      req(0, 1030, 5, {0, 1, 2}, 2),         // continues, but 1030 < 1024 + 900: output was not kept
      req(0, 600, 5, {7, 8}, 3),             // unrelated: makes the common prefix 0 blocks
  };
  const MooncakeConversion c = convert_mooncake(reqs);
  ASSERT_EQ(c.trace.trajectories[0].rounds.size(), 2u);
  EXPECT_EQ(c.trace.trajectories[0].rounds[1].append, 1);
  EXPECT_EQ(c.clamped_appends, 1);
}

TEST(WorkloadMooncake, ReaderValidatesWithFileAndLine) {
  const std::string ok = "{\"timestamp\":0,\"input_length\":600,\"output_length\":5,\"hash_ids\":[0,1]}\n";
  EXPECT_EQ(error_of(ok), "");
  EXPECT_NE(error_of(ok + "{\"timestamp\":0,\"input_length\":600,\"output_length\":5,\"hash_ids\":[0]}\n")
                .find(":2: hash_ids: expected ceil(input_length/512) = 2"),
            std::string::npos);
  EXPECT_NE(error_of("{\"timestamp\":0,\"input_length\":600,\"hash_ids\":[0,1]}\n").find(":1: missing key 'output_length'"),
            std::string::npos);
  EXPECT_NE(error_of("{\"timestamp\":0,\"input_length\":600,\"output_length\":5,\"hash_ids\":[0,-1]}\n")
                .find(":1: hash_ids[1]: expected an integer"),
            std::string::npos);
  EXPECT_NE(error_of(ok + "{\"timestamp\":-3,\"input_length\":600,\"output_length\":5,\"hash_ids\":[0,1]}\n")
                .find(":2: timestamp"),
            std::string::npos);
  EXPECT_NE(error_of("{\"timestamp\":9,\"input_length\":600,\"output_length\":5,\"hash_ids\":[0,1]}\n" + ok)
                .find(":2: timestamp: expected non-decreasing"),
            std::string::npos);
  EXPECT_NE(error_of("{\"timestamp\":0,\"input_length\":600,\"output_length\":5,\"hash_ids\":[0,1],\"x\":1}\n")
                .find(":1: unknown key 'x'"),
            std::string::npos);
  EXPECT_NE(error_of("").find("expected at least one Mooncake request"), std::string::npos);
}

// Pins the chain rebuild on the public Mooncake conversation trace (not copied into the repository).
TEST(WorkloadMooncake, BundledConversationTraceChainsAndReusableShare) {
  const std::string path = std::string(DUALPATH_SHARED_DIR) + "/traces/mooncake_fast25/conversation_trace.jsonl";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "Mooncake trace not found at " << path;
  const MooncakeConversion c = convert_mooncake(read_mooncake(path));
  EXPECT_EQ(c.requests, 12031);
  EXPECT_EQ(c.chains, 8190);
  EXPECT_EQ(c.multi_turn_chains, 2011);
  EXPECT_EQ(c.continued_requests, 3841);  // "about a third of requests continue an earlier one"
  EXPECT_EQ(c.common_prefix_blocks, 1);
  EXPECT_NEAR(c.reusable_share, 0.3736, 0.0001);  // "about 37% of input tokens are reusable prefix blocks"
}
