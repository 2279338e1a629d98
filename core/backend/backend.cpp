#include "core/backend/backend.hpp"

#include <memory>
#include <stdexcept>

namespace dualpath {

void Backend::storage_read_to_hbm(int gpu, const BlockRanges&, double, Done, Failed) {
  throw std::logic_error("backend: storage reads into GPU " + std::to_string(gpu) +
                         "'s HBM (topology.storage.gdr) are not supported by this backend");
}

Done after_all(size_t n, Done done) {
  auto left = std::make_shared<size_t>(n);
  auto all_done = std::make_shared<Done>(std::move(done));
  return [left, all_done] {
    if (--*left == 0) (*all_done)();
  };
}

void Backend::transfer_group(Hop hop, const std::vector<GroupPart>& parts, TrafficClass cls, Done done) {
  if (parts.empty()) throw std::invalid_argument("backend: transfer_group needs at least one transfer");
  const Done one = after_all(parts.size(), std::move(done));
  for (const GroupPart& p : parts) transfer(hop, p.src, p.dst, p.bytes, cls, one);
}

const char* hop_name(Hop h) {
  switch (h) {
    case Hop::H2D: return "h2d";
    case Hop::D2H: return "d2h";
    case Hop::HbmToRemoteDram: return "pe_to_de";
    case Hop::RemoteDramToHbm: return "de_to_pe";
    case Hop::Collective: return "collective";
    case Hop::PoolRead: return "pool_read";
    case Hop::PoolWrite: return "pool_write";
    case Hop::RemoteHbmToHbm: return "de_hbm_to_pe";
  }
  return "?";
}

}  // namespace dualpath
