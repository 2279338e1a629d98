#include <sstream>

#include <gtest/gtest.h>

#include "core/config/input_error.hpp"
#include "core/workload/trace_io.hpp"
#include "workload_test_util.hpp"

using namespace dualpath;

namespace {

// Parses `text` as a trace named "t.jsonl" and returns the error message ("" if it parsed).
std::string error_of(const std::string& text) {
  std::istringstream in(text);
  try {
    parse_trace(in, "t.jsonl");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(WorkloadIo, ParsesRoundsArrivalAndThink) {
  std::istringstream in("{\"id\":\"t17\",\"rounds\":[[412,160],[380,201,1.5]]}\n\n"
                        "{\"id\":\"t18\",\"arrival\":2.25,\"rounds\":[[5,1]]}\r\n");
  const Trace t = parse_trace(in, "x");
  ASSERT_EQ(t.trajectories.size(), 2u);
  EXPECT_EQ(t.trajectories[0].id, "t17");
  EXPECT_LT(t.trajectories[0].arrival, 0);
  ASSERT_EQ(t.trajectories[0].rounds.size(), 2u);
  EXPECT_EQ(t.trajectories[0].rounds[1].append, 380);
  EXPECT_EQ(t.trajectories[0].rounds[1].gen, 201);
  EXPECT_DOUBLE_EQ(t.trajectories[0].rounds[1].think, 1.5);
  EXPECT_DOUBLE_EQ(t.trajectories[1].arrival, 2.25);
}

TEST(WorkloadIo, WriteThenReadIsIdentityAndWriteIsStable) {
  Trace t;
  t.trajectories.push_back(Trajectory{"a", -1, {{412, 160, 0}, {380, 201, 1.5}}, "", 0, -1, nullptr});
  t.trajectories.push_back(Trajectory{"b\"q", 0.125, {{1, 1, 0.000001}}, "", 0, -1, nullptr});
  std::ostringstream out;
  write_trace(out, t);
  EXPECT_EQ(out.str(),
            "{\"id\":\"a\",\"rounds\":[[412,160],[380,201,1.5]]}\n"
            "{\"id\":\"b\\\"q\",\"arrival\":0.125,\"rounds\":[[1,1,0.000001]]}\n");
  std::istringstream in(out.str());
  const Trace back = parse_trace(in, "x");
  std::ostringstream again;
  write_trace(again, back);
  EXPECT_EQ(again.str(), out.str());
}

// Found by fuzz_trace: a think time that prints as "0" was written as a third entry, which read back as 0 and
// was then omitted, so the file did not write back to itself.
TEST(WorkloadIo, ATinyThinkTimeIsWrittenAsNoneAndReadsBackToTheSameBytes) {
  std::istringstream in("{\"id\":\"a\",\"rounds\":[[5,1,1.6e-79],[3,2]]}\n");
  std::ostringstream once, twice;
  write_trace(once, parse_trace(in, "x"));
  EXPECT_EQ(once.str(), "{\"id\":\"a\",\"rounds\":[[5,1],[3,2]]}\n");
  std::istringstream again(once.str());
  write_trace(twice, parse_trace(again, "y"));
  EXPECT_EQ(once.str(), twice.str());
}

TEST(WorkloadIo, FormatDecimalIsFixedAndTrimmed) {
  EXPECT_EQ(format_decimal(1.5), "1.5");
  EXPECT_EQ(format_decimal(2), "2");
  EXPECT_EQ(format_decimal(0), "0");
  EXPECT_EQ(format_decimal(1e-7), "0");
  EXPECT_EQ(format_decimal(123456.0001234), "123456.000123");
}

TEST(WorkloadIo, ErrorsNameFileLineAndWhatWasFound) {
  const std::string ok = "{\"id\":\"a\",\"rounds\":[[1,1]]}\n";
  EXPECT_EQ(error_of(ok), "");
  struct Case {
    std::string text, expect_where, expect_what;
  };
  const Case cases[] = {
      {ok + "{\"id\":\"b\",\"rounds\":[[1,1]]\n", "t.jsonl:2:", "malformed JSON"},
      {ok + "{\"id\":\"b\",\"rounds\":[[-5,1]]}\n", "t.jsonl:2:", "found -5"},
      {"{\"id\":\"b\",\"rounds\":[[0,1]]}\n", "t.jsonl:1:", "found 0"},
      {"{\"id\":\"b\",\"rounds\":[[4.5,1]]}\n", "t.jsonl:1:", "expected an integer"},
      {"{\"id\":\"b\",\"rounds\":[[4,\"7\"]]}\n", "t.jsonl:1:", "found string"},
      {"{\"id\":\"b\",\"rounds\":[[4]]}\n", "t.jsonl:1:", "[append_tokens, gen_tokens]"},
      {"{\"id\":\"b\",\"rounds\":[[4,1,-1]]}\n", "t.jsonl:1:", "think seconds"},
      {"{\"id\":\"b\",\"rounds\":[]}\n", "t.jsonl:1:", "non-empty array"},
      {"{\"id\":\"b\"}\n", "t.jsonl:1:", "missing key 'rounds'"},
      {"{\"rounds\":[[1,1]]}\n", "t.jsonl:1:", "missing key 'id'"},
      {"{\"id\":\"b\",\"round\":[[1,1]]}\n", "t.jsonl:1:", "unknown key 'round'"},
      {"{\"id\":\"b\",\"arrival\":-1,\"rounds\":[[1,1]]}\n", "t.jsonl:1:", "arrival"},
      {ok + ok, "t.jsonl:2:", "unique id"},
      {"[1,2]\n", "t.jsonl:1:", "one JSON object per line"},
      {"\n  \n", "t.jsonl:", "empty trace"},
  };
  for (const auto& c : cases) {
    const std::string msg = error_of(c.text);
    EXPECT_EQ(msg.rfind(c.expect_where, 0), 0u) << c.text << " -> " << msg;
    EXPECT_NE(msg.find(c.expect_what), std::string::npos) << c.text << " -> " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(WorkloadIo, ParsesAndWritesSharedPrefixes) {
  const std::string text =
      "{\"id\":\"kid\",\"parent\":\"root\",\"shared\":300,\"rounds\":[[400,10]]}\n"
      "{\"id\":\"root\",\"rounds\":[[200,10],[300,20]]}\n";
  std::istringstream in(text);
  const Trace t = parse_trace(in, "x");
  EXPECT_EQ(t.trajectories[0].parent, "root");
  EXPECT_EQ(t.trajectories[0].shared, 300);
  EXPECT_EQ(t.trajectories[0].parent_index, 1);  // a parent may come later in the file
  EXPECT_EQ(t.trajectories[1].parent_index, -1);
  std::ostringstream out;
  write_trace(out, t);
  EXPECT_EQ(out.str(), text);
}

TEST(WorkloadIo, SharedPrefixErrorsNameFileLineAndWhat) {
  const std::string root = "{\"id\":\"r\",\"rounds\":[[100,10]]}\n";
  EXPECT_EQ(error_of(root + "{\"id\":\"k\",\"parent\":\"nope\",\"shared\":5,\"rounds\":[[10,1]]}\n"),
            "t.jsonl:2: parent: expected the id of a trajectory in this trace, found 'nope', which no line has");
  EXPECT_EQ(error_of(root + "{\"id\":\"k\",\"parent\":\"r\",\"shared\":-5,\"rounds\":[[10,1]]}\n"),
            "t.jsonl:2: shared tokens: expected an integer in [1, 9223372036854775807], found -5");
  EXPECT_EQ(error_of(root + "{\"id\":\"k\",\"parent\":\"r\",\"rounds\":[[10,1]]}\n"),
            "t.jsonl:2: expected 'parent' and 'shared' together (a shared prefix names both), found only 'parent'");
  EXPECT_EQ(error_of(root + "{\"id\":\"k\",\"parent\":\"k\",\"shared\":5,\"rounds\":[[10,1]]}\n"),
            "t.jsonl:2: parent: expected another trajectory's id, found its own id 'k'");
  EXPECT_EQ(error_of(root + "{\"id\":\"k\",\"parent\":\"r\",\"shared\":200,\"rounds\":[[300,1]]}\n"),
            "t.jsonl:2: shared: expected at most the 110 tokens of parent 'r', found 200");
  EXPECT_EQ(error_of(root + "{\"id\":\"k\",\"parent\":\"r\",\"shared\":50,\"rounds\":[[30,1]]}\n"),
            "t.jsonl:2: shared: expected at most the trajectory's own 31 tokens, found 50");
  EXPECT_EQ(error_of("{\"id\":\"a\",\"parent\":\"b\",\"shared\":5,\"rounds\":[[10,1]]}\n"
                     "{\"id\":\"b\",\"parent\":\"c\",\"shared\":5,\"rounds\":[[10,1]]}\n"
                     "{\"id\":\"c\",\"parent\":\"a\",\"shared\":5,\"rounds\":[[10,1]]}\n"),
            "t.jsonl:1: parent: expected a chain of parents that ends, found the cycle a -> b -> c -> a");
}

TEST(WorkloadIo, MissingFileIsAnInputError) {
  EXPECT_THROW(read_trace("/nonexistent/dir/trace.jsonl"), InputError);
}

TEST(WorkloadIo, ReadsAFileFromDisk) {
  const auto path = test::write_temp("io.jsonl", "{\"id\":\"a\",\"rounds\":[[3,4]]}\n");
  EXPECT_EQ(read_trace(path).trajectories.at(0).rounds.at(0).gen, 4);
}
