// The hardware body's choice-valued options as enums, each with the one table of the names the command line and
// the outputs use (dualpath hw run --transport, --compute, --launch): parsed once at the command line, compared
// as enums everywhere after.
#pragma once

#include <cstdint>

#include "core/config/choices.hpp"

namespace dualpath::hw {

// What moves the bytes between nodes: UCX (RDMA, or tcp/shm on loopback), or plain memcpy (one process only).
enum class TransportKind : uint8_t { Ucx, Memcpy };
inline constexpr ChoiceName<TransportKind> kTransportKinds[] = {{TransportKind::Ucx, "ucx"},
                                                                {TransportKind::Memcpy, "memcpy"}};
inline const char* name_of(TransportKind v) { return choice_name(kTransportKinds, v); }

// How compute runs: the cost model's predicted seconds as a timer, CUDA when a device is usable, or CUDA required.
enum class ComputeMode : uint8_t { Emulated, Auto, Cuda };
inline constexpr ChoiceName<ComputeMode> kComputeModes[] = {
    {ComputeMode::Emulated, "emulated"}, {ComputeMode::Auto, "auto"}, {ComputeMode::Cuda, "cuda"}};
inline const char* name_of(ComputeMode v) { return choice_name(kComputeModes, v); }

// How the processes are laid out: one process (threads), or MPI (rank 0 schedules, rank 1+n serves node n).
enum class Launch : uint8_t { Threads, Mpi };
inline constexpr ChoiceName<Launch> kLaunches[] = {{Launch::Threads, "threads"}, {Launch::Mpi, "mpi"}};
inline const char* name_of(Launch v) { return choice_name(kLaunches, v); }

}  // namespace dualpath::hw
