#include "core/backend/backend.hpp"

namespace dualpath {

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
