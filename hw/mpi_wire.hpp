// The messages between the scheduler rank and the node ranks in multi-process mode, as plain bytes (no MPI here, so
// the encoding is unit-tested on its own). Scheduler -> node: an operation (Op); node -> scheduler: its reply
// (id + error text, empty on success). STOP ends a node's service; the node answers with its report (JSON text).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/backend/backend.hpp"
#include "hw/block_store.hpp"

namespace dualpath::hw::wire {

enum Tag : int { kOp = 1, kReply = 2, kStop = 3, kReport = 4 };

enum class OpKind : uint8_t { Read = 1, Write = 2, Pull = 3, Compute = 4 };
const char* op_name(OpKind k);

struct Op {
  uint64_t id = 0;
  OpKind kind = OpKind::Read;
  TrafficClass cls = TrafficClass::Kv;  // Pull
  int32_t gpu = -1;                     // Compute
  int32_t src = -1, dst = -1;           // Pull: global region ids
  uint64_t bytes = 0;                   // Pull
  std::vector<BlockKey> keys;           // Read, Write
  ComputeWork work;                     // Compute
};

std::string encode(const Op& op);
// Throws std::runtime_error on a malformed message.
Op decode_op(const std::string& bytes);

std::string encode_reply(uint64_t id, const std::string& error);
// Returns the id; `error` receives the text.
uint64_t decode_reply(const std::string& bytes, std::string& error);

}  // namespace dualpath::hw::wire
