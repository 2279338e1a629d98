// Options of a hardware run (dualpath hw run): where the block files go, how each node's SNIC is emulated, what
// moves the bytes, how compute runs, and how the processes are launched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/config/choices.hpp"
#include "hw/hw_choices.hpp"

namespace dualpath::hw {

// Fault injection for tests (`dualpath-hw run --fault`): "missing-block" deletes the first block file right after
// it is written, so the first read that touches it fails; "node-silent" (mpi) makes node 0 stop answering after
// its first reads; "snic-down" makes node 0's reads fail after its second (the core retries them on the other
// read path). Parsed once from its name; the agents and servers compare the enum.
enum class HwFault : uint8_t { None, MissingBlock, NodeSilent, SnicDown };
inline constexpr ChoiceName<HwFault> kHwFaults[] = {
    {HwFault::MissingBlock, "missing-block"}, {HwFault::NodeSilent, "node-silent"}, {HwFault::SnicDown, "snic-down"}};

struct HwOptions {
  std::string storage_dir;         // block files go here (created; emptied of old block files at start)
  double snic_rate = 0;            // bytes/s per node SNIC, reads and writes each (0 = the topology's snic_bw)
  bool io_uring = true;            // false: pread/pwrite thread pool
  bool direct = true;              // O_DIRECT where the file system allows it
  int verify_every = 1;            // verify the checksum of every k-th block read (0 = never)
  TransportKind transport = TransportKind::Ucx;  // memcpy: single process only
  std::string ucx_tls = "posix,self";  // used when UCX_TLS is not set in the environment
  size_t staging_bytes = 8u << 20; // per emulated memory region
  size_t chunk_bytes = 4u << 20;   // largest single RMA operation
  int chunks_in_flight = 2;        // per transfer
  ComputeMode compute = ComputeMode::Emulated;
  Launch launch = Launch::Threads;
  double op_timeout = 120;         // mpi: seconds an operation may stay unanswered before the run stops
  HwFault fault = HwFault::None;  // fault injection for tests (above)
};

}  // namespace dualpath::hw
