// `dualpath hw calibrate`: measures this machine's figures and writes them as an overlay file (core/config/overlay.hpp)
// that `dualpath run --overlay FILE` loads on top of a scenario:
//   - storage read/write rate through BlockStore, unpaced (topology.storage.ssd_read_bw / ssd_write_bw);
//   - with an SNIC rate: the KV payload rate one node's paced SNIC really delivers (file headers and 4 KiB padding
//     included), which is what the simulator's topology.snic_bw must be to predict a hw run (topology.snic_bw);
//   - the transport's get/put rate (UCX, or the memcpy fallback) (topology.cnic_bw);
//   - with a usable GPU: pinned H2D/D2H and per-layer kernel times, fitted to the cost model (hw/gpu/gpu_calibrate).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"
#include "hw/hw_choices.hpp"

namespace dualpath::hw {

struct CalibrateOptions {
  std::string storage_dir;
  size_t block_bytes = 1u << 20;
  int blocks = 256;             // blocks written and read back
  bool io_uring = true;
  bool direct = true;
  std::string ucx_tls = "posix,self";
  TransportKind transport = TransportKind::Ucx;
  size_t transport_bytes = 256u << 20;
  size_t chunk_bytes = 4u << 20;
  double snic_rate = 0;          // bytes/s per node to emulate (0: no paced measurement)
  int paced_blocks = 48;         // blocks read (and written) through the paced SNIC
  const ModelSpec* model = nullptr;  // with a GPU spec: calibrate the GPU too (when compute is not Emulated)
  const GpuSpec* gpu = nullptr;
  ComputeMode compute = ComputeMode::Emulated;  // Emulated: no GPU part; Cuda: GPU required
  std::string description;       // the overlay's description
};

// Returns the overlay: {"overlay": 1, "description", "measured": {storage, snic, transport, gpu}, "set": {...}}.
nlohmann::json calibrate(const CalibrateOptions& options);

}  // namespace dualpath::hw
