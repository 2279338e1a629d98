// Forced into every file of dualpath_sim_native (sim/CMakeLists.txt): the shared simulator pieces and the native
// engine must build without SimGrid, so any use of its namespace there, directly or through a header, is a
// compile error naming the line.
#pragma once
#pragma GCC poison simgrid
