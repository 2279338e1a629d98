// Public trace formats (issue 47): the hand-made samples in tests/traces convert field by field as traces/FORMAT.md
// says, bad lines name file:line, and block hashes give exact content addressing across conversations.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>

#include "core/config/input_error.hpp"
#include "core/kv/block_index.hpp"
#include "core/kv/zero_service_reuse.hpp"
#include "core/workload/agents.hpp"
#include "core/workload/bailian.hpp"
#include "core/workload/block_hashes.hpp"
#include "core/workload/csv_rows.hpp"
#include "core/workload/mooncake.hpp"
#include "core/workload/request_logs.hpp"
#include "core/workload/trace_io.hpp"
#include "workload_test_util.hpp"

using namespace dualpath;
using dualpath::test::write_temp;

namespace {

const std::string kSamples = std::string(DUALPATH_DATA_DIR) + "/tests/traces/";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::vector<int64_t> ids(const Trajectory& t) { return t.hashes ? t.hashes->ids : std::vector<int64_t>{}; }

std::vector<Agent> agents_at_arrivals(const Trace& trace) {
  WorkloadSpec spec;
  spec.source = WorkloadSource::File;
  spec.mode = ArrivalMode::Online;
  spec.aps = 0;
  return make_agents(trace, spec);
}

}  // namespace

TEST(Bailian, SampleConvertsFieldByField) {
  const auto reqs = read_bailian(kSamples + "bailian_sample.jsonl");
  ASSERT_EQ(reqs.size(), 6u);
  EXPECT_EQ(reqs[2].chat_id, 12);
  EXPECT_EQ(reqs[2].parent_chat_id, 10);
  EXPECT_DOUBLE_EQ(reqs[2].timestamp, 2.0);
  EXPECT_EQ(reqs[2].input_length, 70);
  EXPECT_EQ(reqs[2].output_length, 10);
  EXPECT_EQ(reqs[2].type, "text");
  EXPECT_EQ(reqs[2].turn, 2);
  EXPECT_EQ(reqs[2].hash_ids, (std::vector<int64_t>{1, 2, 4, 5, 6}));

  const BailianConversion c = convert_bailian(reqs);
  EXPECT_EQ(c.requests, 6);
  EXPECT_EQ(c.sessions, 3);      // chats 10 and 11, and 15 whose parent 99 is not in the file
  EXPECT_EQ(c.orphans, 1);
  EXPECT_EQ(c.continued, 1);     // 12 continues 10
  EXPECT_EQ(c.branches, 1);      // 13 is 10's second child
  EXPECT_EQ(c.split, 1);         // 14's 50 tokens are shorter than 12's rebuilt context (80)
  EXPECT_EQ(c.zero_outputs, 1);  // 15
  EXPECT_EQ(c.types.at("text"), 4);
  EXPECT_EQ(c.types.at("search"), 1);
  EXPECT_EQ(c.types.at("image"), 1);
  // Whole 16-token blocks an earlier request had: 11 -> 32, 12 -> 32, 13 -> 48 (12's [1,2,4]), 14 -> 48; of 275.
  EXPECT_NEAR(c.reusable_share, 160.0 / 275.0, 1e-12);

  const auto& ts = c.trace.trajectories;
  ASSERT_EQ(ts.size(), 5u);
  EXPECT_EQ(ts[0].id, "bl-10");
  EXPECT_DOUBLE_EQ(ts[0].arrival, 0.0);
  ASSERT_EQ(ts[0].rounds.size(), 2u);
  EXPECT_EQ(ts[0].rounds[0].append, 40);
  EXPECT_EQ(ts[0].rounds[0].gen, 20);
  EXPECT_DOUBLE_EQ(ts[0].rounds[0].think, 2.0);  // 12 arrives 2 s after 10
  EXPECT_EQ(ts[0].rounds[1].append, 10);         // 70 - (40 + 20)
  EXPECT_EQ(ts[0].rounds[1].gen, 10);
  EXPECT_EQ(ts[0].hashes->block_tokens, 16);
  EXPECT_EQ(ts[0].hashes->tokens, 70);
  EXPECT_EQ(ids(ts[0]), (std::vector<int64_t>{1, 2, 4, 5, 6}));  // the last request's ids
  EXPECT_EQ(ts[1].id, "bl-11");
  EXPECT_DOUBLE_EQ(ts[1].arrival, 0.5);
  EXPECT_EQ(ts[2].id, "bl-13");
  EXPECT_EQ(ts[2].rounds[0].append, 64);
  EXPECT_EQ(ids(ts[2]), (std::vector<int64_t>{1, 2, 4, 7}));
  EXPECT_EQ(ts[3].id, "bl-14");
  EXPECT_EQ(ts[3].rounds[0].append, 50);
  EXPECT_EQ(ts[4].id, "bl-15");
  EXPECT_EQ(ts[4].rounds[0].gen, 1);  // no output: one generated token
  EXPECT_EQ(ts[4].hashes->tokens, 16);

  // The written trace reads back to the same bytes.
  std::ostringstream a, b;
  write_trace(a, c.trace);
  std::istringstream in(a.str());
  write_trace(b, parse_trace(in, "round-trip"));
  EXPECT_EQ(a.str(), b.str());
}

TEST(Bailian, BadLinesNameTheLine) {
  const std::string good = R"({"chat_id":1,"parent_chat_id":-1,"timestamp":0,"input_length":20,"output_length":1,"type":"text","turn":1,"hash_ids":[1,2]})";
  auto err = [&](const std::string& second) {
    return error_of([&] { read_bailian(write_temp("bl.jsonl", good + "\n" + second + "\n")); });
  };
  EXPECT_NE(err(R"({"chat_id":2,"parent_chat_id":-1,"timestamp":1,"input_length":20,"output_length":1,"type":"text","turn":1,"hash_ids":[1,2,3]})").find("bl.jsonl:2: hash_ids: expected one id per 16-token block"), std::string::npos);
  EXPECT_NE(err(R"({"chat_id":1,"parent_chat_id":-1,"timestamp":1,"input_length":20,"output_length":1,"type":"text","turn":1,"hash_ids":[1,2]})").find("bl.jsonl:2: chat_id: expected a unique id"), std::string::npos);
  EXPECT_NE(err(R"({"chat_id":2,"parent_chat_id":-1,"timestamp":1,"input_length":20,"output_length":1,"type":"text","turn":1})").find("bl.jsonl:2: missing key 'hash_ids'"), std::string::npos);
  EXPECT_NE(err(R"({"chat_id":2,"parent_chat_id":-2,"timestamp":1,"input_length":20,"output_length":1,"type":"text","turn":1,"hash_ids":[1,2]})").find("bl.jsonl:2: parent_chat_id"), std::string::npos);
  EXPECT_NE(err(R"({"chat_id":2,"parent_chat_id":-1,"timestamp":-1,"input_length":20,"output_length":1,"type":"text","turn":1,"hash_ids":[1,2]})").find("bl.jsonl:2: timestamp"), std::string::npos);
  EXPECT_NE(err(R"({"chat_id":2,"parent_chat_id":-1,"timestamp":1,"input_length":20,"output_length":1,"type":"","turn":1,"hash_ids":[1,2]})").find("bl.jsonl:2: type"), std::string::npos);
  EXPECT_NE(err(R"({"chat_id":2,"parent_chat_id":-1,"timestamp":1,"input_length":20,"output_length":1,"type":"text","turn":1,"hash_ids":[1,2],"x":1})").find("bl.jsonl:2: unknown key 'x'"), std::string::npos);
}

TEST(RequestLogs, AzureSampleConvertsFieldByField) {
  const RequestLogConversion c = convert_azure(kSamples + "azure_sample.csv");
  EXPECT_EQ(c.requests, 3);
  EXPECT_EQ(c.dropped, 0);
  EXPECT_EQ(c.clamped, 1);
  const auto& ts = c.trace.trajectories;
  ASSERT_EQ(ts.size(), 3u);
  EXPECT_EQ(ts[0].id, "az-2");
  EXPECT_DOUBLE_EQ(ts[0].arrival, 0.0);
  EXPECT_EQ(ts[0].rounds[0].append, 374);
  EXPECT_EQ(ts[0].rounds[0].gen, 44);
  EXPECT_NEAR(ts[1].arrival, 50.9951690 - 46.6805900, 1e-6);
  EXPECT_EQ(ts[1].rounds[0].append, 396);
  EXPECT_EQ(ts[1].rounds[0].gen, 109);
  EXPECT_NEAR(ts[2].arrival, 62.5 - 46.68059, 1e-6);
  EXPECT_EQ(ts[2].rounds[0].append, 1);  // no context tokens: one
  EXPECT_FALSE(ts[0].hashes);
  EXPECT_NEAR(parse_utc_timestamp("1970-01-02 00:00:01.5"), 86401.5, 1e-9);
  EXPECT_NEAR(parse_utc_timestamp("2024-03-01 00:00:00") - parse_utc_timestamp("2024-02-28 00:00:00"), 2 * 86400.0, 1e-9);
  EXPECT_LT(parse_utc_timestamp("2024-13-01 00:00:00"), 0);
  EXPECT_LT(parse_utc_timestamp("yesterday"), 0);
  // Real calendar dates only (issue 68: 2023-02-30 was read as March 2); leap years as the Gregorian calendar has them.
  EXPECT_LT(parse_utc_timestamp("2023-02-30 00:00:00"), 0);
  EXPECT_LT(parse_utc_timestamp("2023-02-29 00:00:00"), 0);
  EXPECT_GT(parse_utc_timestamp("2024-02-29 00:00:00"), 0);
  EXPECT_LT(parse_utc_timestamp("2100-02-29 00:00:00"), 0);
  EXPECT_GT(parse_utc_timestamp("2000-02-29 00:00:00"), 0);
  EXPECT_LT(parse_utc_timestamp("2024-04-31 00:00:00"), 0);
  // The Azure 2024 files' form: microseconds and a zone, taken back to UTC.
  EXPECT_NEAR(parse_utc_timestamp("2024-05-10 00:00:00.009930+00:00"),
              parse_utc_timestamp("2024-05-10 00:00:00") + 0.00993, 1e-6);
  EXPECT_NEAR(parse_utc_timestamp("2024-05-10 02:00:00+02:00"), parse_utc_timestamp("2024-05-10 00:00:00"), 1e-9);
  EXPECT_NEAR(parse_utc_timestamp("2024-05-09 22:30:00-01:30"), parse_utc_timestamp("2024-05-10 00:00:00"), 1e-9);
  EXPECT_NEAR(parse_utc_timestamp("2024-05-10T00:00:00Z"), parse_utc_timestamp("2024-05-10 00:00:00"), 1e-9);
  EXPECT_LT(parse_utc_timestamp("2024-05-10 00:00:00+0000"), 0);
  EXPECT_LT(parse_utc_timestamp("2024-05-10 00:00:00."), 0);
}

TEST(RequestLogs, BurstGptSampleConvertsFieldByField) {
  const RequestLogConversion c = convert_burstgpt(kSamples + "burstgpt_sample.csv");
  EXPECT_EQ(c.requests, 4);
  EXPECT_EQ(c.dropped, 1);  // line 4: no response tokens (a failed request)
  EXPECT_EQ(c.clamped, 1);  // line 5: no request tokens
  EXPECT_EQ(c.models.at("ChatGPT"), 1);
  EXPECT_EQ(c.models.at("GPT-4"), 2);  // line 5's model is quoted
  const auto& ts = c.trace.trajectories;
  ASSERT_EQ(ts.size(), 3u);
  EXPECT_EQ(ts[0].id, "bg-2");
  EXPECT_DOUBLE_EQ(ts[0].arrival, 3);
  EXPECT_EQ(ts[0].rounds[0].append, 610);
  EXPECT_EQ(ts[0].rounds[0].gen, 25);
  EXPECT_EQ(ts[1].id, "bg-3");
  EXPECT_EQ(ts[1].rounds[0].gen, 310);
  EXPECT_EQ(ts[2].id, "bg-5");
  EXPECT_DOUBLE_EQ(ts[2].arrival, 120);
  EXPECT_EQ(ts[2].rounds[0].append, 1);
  EXPECT_EQ(ts[2].rounds[0].gen, 14);
}

TEST(RequestLogs, BadRowsNameTheLine) {
  const std::string header = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n";
  auto err = [&](const std::string& rows) {
    return error_of([&] { convert_burstgpt(write_temp("bg.csv", header + rows)); });
  };
  EXPECT_NE(err("5,ChatGPT,10,2,12,API log\n4,ChatGPT,10,2,12,API log\n").find("bg.csv:3: Timestamp: expected non-decreasing"), std::string::npos);
  EXPECT_NE(err("5,ChatGPT,ten,2,12,API log\n").find("bg.csv:2: Request tokens: expected an integer"), std::string::npos);
  EXPECT_NE(err("5,ChatGPT,10,2,12\n").find("bg.csv:2: expected 6 fields"), std::string::npos);
  EXPECT_NE(err("5,\"ChatGPT,10,2,12,API log\n").find("bg.csv:2: expected a closing quote"), std::string::npos);
  EXPECT_NE(err(std::string("5,Chat\x01GPT,10,2,12,API log\n")).find("bg.csv:2:7: expected text, found the control byte 1"), std::string::npos);
  EXPECT_NE(err("5,ChatGPT,10,0,10,API log\n").find("expected at least one BurstGPT request"), std::string::npos);
  EXPECT_NE(error_of([&] { convert_burstgpt(write_temp("bg2.csv", "Timestamp,Model\n1,x\n")); }).find("bg2.csv:1: expected the header 'Timestamp,Model,Request tokens"), std::string::npos);
  EXPECT_NE(error_of([&] { convert_azure(write_temp("az.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15,1,1\n")); }).find("az.csv:2: TIMESTAMP: expected a time like"), std::string::npos);
}

// RFC 4180, as traces/FORMAT.md promises: a quoted field may hold line breaks (issue 68: it was refused), the record
// then spans lines; errors name the record's first line; a quote left open is bounded.
TEST(RequestLogs, QuotedFieldsMayHoldLineBreaks) {
  const std::string header = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\r\n";
  const RequestLogConversion c = convert_burstgpt(write_temp(
      "bgq.csv", header + "5,\"GPT\r\n-4\",10,2,12,\"API\nlog\"\r\n6,ChatGPT,20,3,23,API log\n"));
  ASSERT_EQ(c.trace.trajectories.size(), 2u);
  EXPECT_EQ(c.models.at("GPT\n-4"), 1);  // the break is kept, as LF
  EXPECT_EQ(c.trace.trajectories[0].id, "bg-2");  // the record's first line
  EXPECT_EQ(c.trace.trajectories[1].id, "bg-5");
  EXPECT_EQ(c.trace.trajectories[1].rounds[0].append, 20);
  auto err = [&](const std::string& rows) {
    return error_of([&] { convert_burstgpt(write_temp("bgq2.csv", header + rows)); });
  };
  EXPECT_NE(err("5,\"x\ny\",ten,2,12,API log\n").find("bgq2.csv:2: Request tokens: expected an integer"),
            std::string::npos);
  std::string open = "5,\"x";
  for (int i = 0; i < CsvRows::kMaxRecordLines + 5; ++i) open += "\nmore";
  EXPECT_NE(err(open).find("bgq2.csv:2: expected a closing quote within 1000 lines"), std::string::npos) << err(open);
}

// Every converter's output reads back (issue 68): a conversion never writes what the native reader refuses. Each
// converter refuses a time beyond the reader's year at the source line, and each bundled sample's conversion reads
// back with as many trajectories. (The fuzz targets check the same over generated inputs: fuzz/read_back.hpp.)
TEST(Converters, RefuseWhatTheNativeReaderWouldRefuse) {
  const std::string az = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,374,44\n";
  EXPECT_NE(error_of([&] { convert_azure(write_temp("far.csv", az + "5023-11-16 18:15:46,1,1\n")); })
                .find("far.csv:3: TIMESTAMP: expected a time within a year (31536000 s) of the first row's"),
            std::string::npos);
  EXPECT_NO_THROW(convert_azure(write_temp("near.csv", az + "2024-11-15 18:15:46,1,1\n")));  // 365 days on
  const std::string bg = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n";
  EXPECT_NE(error_of([&] { convert_burstgpt(write_temp("far.csv", bg + "31536001,x,1,1,2,API log\n")); })
                .find("far.csv:2: Timestamp: expected a number in [0, 31536000]"),
            std::string::npos);
  const std::string mc = R"({"timestamp": 63072000000, "input_length": 100, "output_length": 5, "hash_ids": [1]})";
  EXPECT_NE(error_of([&] { read_mooncake(write_temp("far.jsonl", mc + "\n")); })
                .find("far.jsonl:1: timestamp (milliseconds): expected a number in [0.0, 31536000000.0]"),
            std::string::npos);
  auto reads_back = [](const Trace& t) {
    std::ostringstream out;
    write_trace(out, t);
    std::istringstream in(out.str());
    return parse_trace(in, "converted").trajectories.size() == t.trajectories.size();
  };
  EXPECT_TRUE(reads_back(convert_azure(kSamples + "azure_sample.csv").trace));
  EXPECT_TRUE(reads_back(convert_burstgpt(kSamples + "burstgpt_sample.csv").trace));
  EXPECT_TRUE(reads_back(convert_bailian(read_bailian(kSamples + "bailian_sample.jsonl")).trace));
  for (const ReuseForm form : {ReuseForm::Hashes, ReuseForm::Prefix})
    EXPECT_TRUE(reads_back(convert_mooncake(read_mooncake(kSamples + "mooncake_sample.jsonl"), form).trace));
}

// The key of a simulator block names its whole prefix: equal exactly when every trace block up to its end is.
TEST(BlockHashes, KeysNameWholePrefixesAtAnyBlockSize) {
  const BlockHashes a{4, 16, {1, 2, 3, 4}}, b{4, 16, {1, 2, 3, 9}}, c{4, 16, {7, 2, 3, 4}};
  const auto ka = chain_keys(a), kb = chain_keys(b), kc = chain_keys(c);
  // B = T: blocks 0-2 equal, block 3 differs; a different first id changes every key after it.
  for (int k = 0; k < 3; ++k) EXPECT_EQ(sim_block_key(ka, 4, 4, k), sim_block_key(kb, 4, 4, k));
  EXPECT_NE(sim_block_key(ka, 4, 4, 3), sim_block_key(kb, 4, 4, 3));
  for (int k = 0; k < 4; ++k) EXPECT_NE(sim_block_key(ka, 4, 4, k), sim_block_key(kc, 4, 4, k));
  // B = 2T: a simulator block is shared only when both trace blocks it covers are.
  EXPECT_EQ(sim_block_key(ka, 4, 8, 0), sim_block_key(kb, 4, 8, 0));
  EXPECT_NE(sim_block_key(ka, 4, 8, 1), sim_block_key(kb, 4, 8, 1));
  // B = T/2: the halves of one trace block are two blocks, each shared with the same half only.
  EXPECT_EQ(sim_block_key(ka, 4, 2, 5), sim_block_key(kb, 4, 2, 5));
  EXPECT_NE(sim_block_key(ka, 4, 2, 4), sim_block_key(ka, 4, 2, 5));
  EXPECT_NE(sim_block_key(ka, 4, 2, 6), sim_block_key(kb, 4, 2, 6));
  // A partial last block names shorter content than a full block with the same id.
  EXPECT_NE(chain_keys(BlockHashes{4, 14, {1, 2, 3, 4}})[3], ka[3]);
  EXPECT_EQ(chain_keys(BlockHashes{4, 14, {1, 2, 3, 4}})[2], ka[2]);
  EXPECT_EQ(hashed_sim_blocks(BlockHashes{4, 14, {1, 2, 3, 4}}, 4, 100), 3);
  EXPECT_EQ(hashed_sim_blocks(BlockHashes{4, 14, {1, 2, 3, 4}}, 4, 9), 2);
}

// tests/traces/cross_conversation.jsonl: B's second turn finds, in C's stream, content B's first turn shared with
// nobody; the zero-service replay counts exactly those hits (A 0, C 8, B 8 then 16 of 8 + 20 + 12 + 20 tokens).
TEST(BlockHashes, ReuseAcrossConversationsIsExact) {
  const Trace trace = read_trace(kSamples + "cross_conversation.jsonl");
  const std::vector<Agent> agents = agents_at_arrivals(trace);
  ASSERT_EQ(agents.size(), 3u);
  ASSERT_TRUE(agents[2].hashed);
  const ZeroServiceReuse r = zero_service_reuse(agents, 4);
  EXPECT_DOUBLE_EQ(r.prompt_tokens, 60);
  EXPECT_DOUBLE_EQ(r.hit_tokens, 32);
  EXPECT_DOUBLE_EQ(r.shared_hit_tokens, 32);  // C's 8 are A's blocks; all of B's hits live in A's or C's stream
  BlockIndex idx(agents, 4);
  EXPECT_EQ(idx.place_of(2, 0).stream, 0);  // [1]: A holds it first
  EXPECT_EQ(idx.place_of(2, 2).stream, 1);  // [1,2,5]: C's
  EXPECT_EQ(idx.place_of(2, 4).stream, 1);  // [1,2,5,6,7]: C's block 4
  EXPECT_EQ(idx.place_of(2, 4).index, 4);
  EXPECT_EQ(idx.place_of(2, 5).stream, 2);  // beyond the hashes: B's own
  // A write of a block another agent holds claims nothing: B writes only its own last block.
  const BlockRanges claimed = idx.claim(2, 0, 6);
  ASSERT_EQ(BlockIndex::block_count(claimed), 6);  // nothing persisted yet: all six are claimed once
  EXPECT_EQ(BlockIndex::block_count(idx.claim(1, 0, 5)), 0);  // C's first five are now B's claims (shared)
}

// Two agents replaying one trajectory share only what the trace shares between trajectories (as without hashes).
TEST(BlockHashes, ContentOnlyOneTrajectoryHasIsEachReplayersOwn) {
  const Trace trace = read_trace(write_temp("two.jsonl",
      "{\"id\":\"x\",\"hashes\":{\"block\":4,\"tokens\":12,\"ids\":[1,2,3]},\"rounds\":[[12,4]]}\n"
      "{\"id\":\"y\",\"hashes\":{\"block\":4,\"tokens\":8,\"ids\":[1,2]},\"rounds\":[[8,4]]}\n"));
  WorkloadSpec spec;
  spec.source = WorkloadSource::File;
  spec.mode = ArrivalMode::Online;
  spec.aps = 100;
  spec.duration = 1;
  std::vector<Agent> agents = make_agents(trace, spec);
  std::vector<Agent> xs;
  for (const Agent& a : agents)
    if (a.trajectory == 0 && xs.size() < 2) xs.push_back(a);
  ASSERT_EQ(xs.size(), 2u);
  xs[0].id = 0, xs[1].id = 1, xs[1].start = xs[0].start + 1;
  BlockIndex idx(xs, 4);
  EXPECT_EQ(idx.place_of(1, 0).stream, 0);  // [1] and [1,2] are y's too: shared
  EXPECT_EQ(idx.place_of(1, 1).stream, 0);
  EXPECT_EQ(idx.place_of(1, 2).stream, 1);  // [1,2,3] is x's alone: each replayer's own
  spec.append_scale = 2;
  EXPECT_NE(error_of([&] { make_agents(trace, spec); }).find("workload.append_scale: expected 1 for a trace with block hashes"),
            std::string::npos);
}

TEST(BlockHashes, NativeFormatRulesNameTheLine) {
  auto err = [](const std::string& line) { return error_of([&] { read_trace(write_temp("h.jsonl", line + "\n")); }); };
  EXPECT_NE(err(R"({"id":"a","hashes":{"block":4,"tokens":9,"ids":[1,2]},"rounds":[[8,4]]})").find("h.jsonl:1: hashes.ids: expected ceil(tokens/block) = 3 ids"), std::string::npos);
  EXPECT_NE(err(R"({"id":"a","hashes":{"block":4,"tokens":13,"ids":[1,2,3,4]},"rounds":[[8,4]]})").find("h.jsonl:1: hashes.tokens: expected at most the trajectory's own 12 tokens"), std::string::npos);
  EXPECT_NE(err(R"({"id":"a","hashes":{"block":0,"tokens":4,"ids":[1]},"rounds":[[8,4]]})").find("h.jsonl:1: hashes.block"), std::string::npos);
  EXPECT_NE(err(R"({"id":"a","hashes":{"block":4,"ids":[1]},"rounds":[[8,4]]})").find("h.jsonl:1: hashes: missing key 'tokens'"), std::string::npos);
  EXPECT_NE(err(R"({"id":"a","hashes":[1,2],"rounds":[[8,4]]})").find("h.jsonl:1: hashes: expected an object"), std::string::npos);
  EXPECT_NE(err("{\"id\":\"a\",\"rounds\":[[8,4]]}\n{\"id\":\"b\",\"parent\":\"a\",\"shared\":4,\"hashes\":{\"block\":4,\"tokens\":4,\"ids\":[1]},\"rounds\":[[8,4]]}").find("h.jsonl:2: hashes: expected either block hashes or 'parent'/'shared'"), std::string::npos);
  EXPECT_NE(err("{\"id\":\"a\",\"hashes\":{\"block\":4,\"tokens\":4,\"ids\":[1]},\"rounds\":[[8,4]]}\n{\"id\":\"b\",\"parent\":\"a\",\"shared\":4,\"rounds\":[[8,4]]}").find("h.jsonl:2: parent: expected a trajectory without block hashes"), std::string::npos);
}

// The Mooncake converter with hashes: each trajectory carries its last request's ids; a request shorter than its
// chain's context starts a chain of its own instead of a clamped append.
TEST(Mooncake, HashesCarryTheLastRequestsIds) {
  std::vector<MooncakeRequest> reqs(4);
  reqs[0] = MooncakeRequest{0, 1000, 100, {1, 2}, 1};
  reqs[1] = MooncakeRequest{0, 1500, 50, {1, 5, 6}, 2};     // continues 0 (its full block [1] is a prefix)
  reqs[2] = MooncakeRequest{3000, 1520, 10, {1, 5, 6}, 3};  // continues 1 by its prefix, but 1520 < 1550 (context)
  reqs[3] = MooncakeRequest{3000, 100, 5, {9}, 4};          // another conversation (no common first block)
  const MooncakeConversion h = convert_mooncake(reqs, ReuseForm::Hashes);
  ASSERT_EQ(h.trace.trajectories.size(), 3u);
  EXPECT_EQ(h.split_requests, 1);
  EXPECT_EQ(h.clamped_appends, 0);
  EXPECT_EQ(ids(h.trace.trajectories[0]), (std::vector<int64_t>{1, 5, 6}));
  EXPECT_EQ(h.trace.trajectories[0].hashes->tokens, 1500);
  EXPECT_EQ(h.trace.trajectories[1].hashes->tokens, 1520);
  EXPECT_TRUE(h.trace.trajectories[1].parent.empty());
  const MooncakeConversion p = convert_mooncake(reqs, ReuseForm::Prefix);
  ASSERT_EQ(p.trace.trajectories.size(), 2u);
  EXPECT_EQ(p.clamped_appends, 1);
  EXPECT_FALSE(p.trace.trajectories[0].hashes);
}
