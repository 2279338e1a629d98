#include "core/run/build_info.hpp"

#ifndef DUALPATH_VERSION
#define DUALPATH_VERSION "unknown"
#endif

namespace dualpath {

const char* build_version() { return DUALPATH_VERSION; }

}  // namespace dualpath
