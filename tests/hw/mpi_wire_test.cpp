// The scheduler <-> node messages of multi-process mode survive encoding, and malformed ones are refused.
#include <gtest/gtest.h>

#include "hw/mpi_wire.hpp"

using namespace dualpath;
using namespace dualpath::hw;

TEST(MpiWire, OperationsRoundTrip) {
  wire::Op read;
  read.id = 42;
  read.kind = wire::OpKind::Read;
  read.keys = {{7, 0}, {7, 1}, {123456789012ull, 99}};
  const auto r = wire::decode_op(wire::encode(read));
  EXPECT_EQ(r.id, 42u);
  EXPECT_EQ(r.kind, wire::OpKind::Read);
  ASSERT_EQ(r.keys.size(), 3u);
  EXPECT_EQ(r.keys[2].stream, 123456789012ull);
  EXPECT_EQ(r.keys[2].index, 99u);

  wire::Op pull;
  pull.id = 1ull << 40;
  pull.kind = wire::OpKind::Pull;
  pull.cls = TrafficClass::Model;
  pull.src = 3, pull.dst = 6, pull.bytes = 123456789;
  const auto p = wire::decode_op(wire::encode(pull));
  EXPECT_EQ(p.cls, TrafficClass::Model);
  EXPECT_EQ(p.src, 3);
  EXPECT_EQ(p.dst, 6);
  EXPECT_EQ(p.bytes, 123456789u);

  wire::Op comp;
  comp.kind = wire::OpKind::Compute;
  comp.gpu = 5;
  comp.work.seconds = 0.125;
  comp.work.layers = 30;
  comp.work.tokens = 4096;
  comp.work.decode = true;
  comp.work.steps = 4;
  comp.work.linear_tokens = 17.5;
  comp.work.weight_bytes_per_gpu = 2.5e9;
  comp.work.seqs = {{1000, 1}, {2000, 1}};
  const auto c = wire::decode_op(wire::encode(comp));
  EXPECT_EQ(c.gpu, 5);
  EXPECT_DOUBLE_EQ(c.work.seconds, 0.125);
  EXPECT_EQ(c.work.layers, 30);
  EXPECT_TRUE(c.work.decode);
  EXPECT_EQ(c.work.steps, 4);
  EXPECT_DOUBLE_EQ(c.work.linear_tokens, 17.5);
  ASSERT_EQ(c.work.seqs.size(), 2u);
  EXPECT_EQ(c.work.seqs[1].cached, 2000);
}

TEST(MpiWire, RepliesCarryErrors) {
  std::string err;
  EXPECT_EQ(wire::decode_reply(wire::encode_reply(9, ""), err), 9u);
  EXPECT_EQ(err, "");
  EXPECT_EQ(wire::decode_reply(wire::encode_reply(10, "missing block file x"), err), 10u);
  EXPECT_EQ(err, "missing block file x");
}

TEST(MpiWire, MalformedMessagesAreRefused) {
  wire::Op read;
  read.kind = wire::OpKind::Write;
  read.keys = {{1, 2}};
  const std::string good = wire::encode(read);
  EXPECT_THROW(wire::decode_op(good.substr(0, good.size() - 1)), std::runtime_error);
  EXPECT_THROW(wire::decode_op(good + "x"), std::runtime_error);
  std::string bad = good;
  bad[8] = 9;  // unknown kind
  EXPECT_THROW(wire::decode_op(bad), std::runtime_error);
  std::string err;
  EXPECT_THROW(wire::decode_reply("abc", err), std::runtime_error);
}
