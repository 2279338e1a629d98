#include "hw/mpi_wire.hpp"

#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace dualpath::hw::wire {

namespace {

struct Writer {
  std::string out;
  template <typename T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
};

struct Reader {
  const std::string& in;
  size_t at = 0;
  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    if (at + sizeof(T) > in.size()) throw std::runtime_error("mpi wire: truncated message");
    T v;
    std::memcpy(&v, in.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
};

}  // namespace

const char* op_name(OpKind k) {
  switch (k) {
    case OpKind::Read: return "storage read";
    case OpKind::Write: return "storage write";
    case OpKind::Pull: return "transfer";
    case OpKind::Compute: return "compute";
  }
  return "?";
}

std::string encode(const Op& op) {
  Writer w;
  w.put(op.id);
  w.put(static_cast<uint8_t>(op.kind));
  switch (op.kind) {
    case OpKind::Read:
    case OpKind::Write:
      w.put(static_cast<uint64_t>(op.keys.size()));
      for (const auto& k : op.keys) w.put(k.stream), w.put(k.index);
      break;
    case OpKind::Pull:
      w.put(static_cast<uint8_t>(op.cls));
      w.put(op.src), w.put(op.dst), w.put(op.bytes);
      break;
    case OpKind::Compute: {
      const ComputeWork& c = op.work;
      w.put(op.gpu);
      w.put(c.seconds), w.put(c.flops), w.put(c.layers), w.put(c.tokens), w.put(static_cast<uint8_t>(c.decode));
      w.put(c.linear_tokens), w.put(c.weight_bytes_per_gpu), w.put(c.steps);
      w.put(static_cast<uint64_t>(c.seqs.size()));
      for (const auto& q : c.seqs) w.put(q.cached), w.put(q.fresh);
      break;
    }
  }
  return w.out;
}

Op decode_op(const std::string& bytes) {
  Reader r{bytes};
  Op op;
  op.id = r.get<uint64_t>();
  const auto kind = r.get<uint8_t>();
  if (kind < 1 || kind > 4) throw std::runtime_error("mpi wire: unknown operation " + std::to_string(kind));
  op.kind = static_cast<OpKind>(kind);
  switch (op.kind) {
    case OpKind::Read:
    case OpKind::Write: {
      const auto n = r.get<uint64_t>();
      if (n > bytes.size()) throw std::runtime_error("mpi wire: bad block count");
      op.keys.resize(n);
      for (auto& k : op.keys) k.stream = r.get<uint64_t>(), k.index = r.get<uint32_t>();
      break;
    }
    case OpKind::Pull:
      op.cls = static_cast<TrafficClass>(r.get<uint8_t>());
      op.src = r.get<int32_t>(), op.dst = r.get<int32_t>(), op.bytes = r.get<uint64_t>();
      break;
    case OpKind::Compute: {
      ComputeWork& c = op.work;
      op.gpu = r.get<int32_t>();
      c.seconds = r.get<double>(), c.flops = r.get<double>(), c.layers = r.get<int>(), c.tokens = r.get<int64_t>();
      c.decode = r.get<uint8_t>() != 0;
      c.linear_tokens = r.get<double>(), c.weight_bytes_per_gpu = r.get<double>(), c.steps = r.get<int>();
      const auto n = r.get<uint64_t>();
      if (n > bytes.size()) throw std::runtime_error("mpi wire: bad sequence count");
      c.seqs.resize(n);
      for (auto& q : c.seqs) q.cached = r.get<int64_t>(), q.fresh = r.get<int64_t>();
      break;
    }
  }
  if (r.at != bytes.size()) throw std::runtime_error("mpi wire: trailing bytes");
  return op;
}

std::string encode_reply(uint64_t id, const std::string& error) {
  Writer w;
  w.put(id);
  w.out += error;
  return w.out;
}

uint64_t decode_reply(const std::string& bytes, std::string& error) {
  Reader r{bytes};
  const auto id = r.get<uint64_t>();
  error = bytes.substr(r.at);
  return id;
}

}  // namespace dualpath::hw::wire
