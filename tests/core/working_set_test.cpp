// The KV working set of an online run (core/metrics/working_set.hpp) against hand-worked timelines.
#include <gtest/gtest.h>

#include <deque>

#include "core/metrics/working_set.hpp"

using namespace dualpath;

namespace {

Request round(int agent, int k, int64_t prompt, int64_t gen, double arrival, double done) {
  Request r;
  r.agent = agent, r.round = k, r.prompt = prompt, r.gen = gen;
  r.t.arrival = arrival, r.t.done = done;
  return r;
}

}  // namespace

TEST(WorkingSet, LawAndMeasuredFromTimelines) {
  RequestLog rq;
  // Agent 0: rounds at 0 and 4, done at 2 and 6 (lives 6 s, final 300 + 20 tokens).
  rq.push_back(round(0, 0, 100, 10, 0, 2));
  rq.push_back(round(0, 1, 300, 20, 4, 6));
  // Agent 1: one round from 2 to 10 (lives 8 s, final 500 + 100 tokens).
  rq.push_back(round(1, 0, 500, 100, 2, 10));
  // Agent 2: its second round was lost (done -1) and never redone: it did not complete its 2-round trajectory.
  rq.push_back(round(2, 0, 50, 5, 1, 3));
  rq.push_back(round(2, 1, 80, 5, 5, -1));
  const WorkingSet w = working_set(rq, {2, 1, 2}, 0.25);
  EXPECT_EQ(w.agents, 2);
  EXPECT_DOUBLE_EQ(w.mean_lifetime_s, 7.0);
  EXPECT_DOUBLE_EQ(w.mean_final_tokens, (320.0 + 600.0) / 2);
  EXPECT_DOUBLE_EQ(w.law_tokens, 0.25 * 7.0 * 460.0 / 2);
  // Held: agent 0 100 x [0, 4) + 300 x [4, 6); agent 1 500 x [2, 10); agent 2 50 x [1, 3) (its lost round holds
  // nothing). Over [0, 10): (400 + 600 + 4000 + 100) / 10 = 510 tokens.
  EXPECT_DOUBLE_EQ(w.measured_mean_tokens, 510.0);
}
