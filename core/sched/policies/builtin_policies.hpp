// Registers every built-in policy (called once by the registry).
#pragma once

namespace dualpath {

void register_builtin_policies();

}  // namespace dualpath
