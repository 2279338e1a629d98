// `dualpath hw calibrate`: measures this machine's storage read/write rate through BlockStore (unpaced) and the
// transport's rate through HwBackend's transport (UCX, or the memcpy fallback), and writes the figures plus the
// `--set` overrides that feed them to the simulator. No GPU figures: H2D/D2H and kernel times need a GPU.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace dualpath::hw {

struct CalibrateOptions {
  std::string storage_dir;
  size_t block_bytes = 1u << 20;
  int blocks = 256;             // blocks written and read back
  bool io_uring = true;
  bool direct = true;
  std::string ucx_tls = "posix,self";
  std::string transport = "ucx";
  size_t transport_bytes = 256u << 20;
  size_t chunk_bytes = 4u << 20;
};

nlohmann::json calibrate(const CalibrateOptions& options);

}  // namespace dualpath::hw
