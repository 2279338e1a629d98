// Transport for hw/: one-sided RMA between registered memory regions, behind a small interface so the UCX
// implementation (transport_ucx.cpp) can be swapped for a memcpy stand-in (when UCX cannot initialise) or, later,
// libfabric. Completions run on the transport's own thread; callers hand them to the event loop.
//
// In single-process mode every emulated memory (each GPU's "HBM" and each GPU's share of its node's DRAM buffer)
// is a host region registered once; "remote" means another region reached through the UCX endpoint between the
// transport's two workers, so bytes really cross the UCX transport selected by UCX_TLS (tcp on lo, posix shared
// memory, or rc/dc on a real fabric).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/hw_choices.hpp"

namespace dualpath::hw {

class Transport {
 public:
  using Completion = std::function<void(const std::string& error)>;  // empty error: success
  virtual ~Transport() = default;
  // What moves the bytes, e.g. "ucx (tls=posix,self)" or "memcpy (UCX unavailable: ...)".
  virtual std::string name() const = 0;
  virtual bool is_fallback() const { return false; }
  // Registers [base, base+len) for RMA; returns the region id. Register every region before the first put/get.
  virtual int register_region(void* base, size_t len) = 0;
  // Writes len bytes from region src at src_off into region dst at dst_off (one-sided put; completes when the
  // bytes are visible at the target, i.e. after a flush).
  virtual void put(int src, size_t src_off, int dst, size_t dst_off, size_t len, Completion done) = 0;
  // Reads len bytes of region src at src_off into region dst at dst_off (one-sided get issued by the receiver).
  virtual void get(int src, size_t src_off, int dst, size_t dst_off, size_t len, Completion done) = 0;

  // Multi-process mode (TransportOptions::peer_mode; one transport per process and traffic class). After
  // registering this process's regions, export_peer() returns what a peer needs to reach them (the worker address,
  // each region's address and packed remote key). connect_peers() takes every process's export in rank order (this
  // one's included, at `self`) and replaces the region table by the concatenation of all processes' regions in that
  // order, so region ids become global. get() must then write a local region and put() read one.
  virtual std::string export_peer() { throw std::logic_error(name() + " has no multi-process mode"); }
  virtual void connect_peers(const std::vector<std::string>& exports, int self) {
    (void)exports, (void)self;
    throw std::logic_error(name() + " has no multi-process mode");
  }
};

struct TransportOptions {
  TransportKind kind = TransportKind::Ucx;
  std::string label;          // "kv" or "model": which traffic this context carries
  std::string tls;            // UCX_TLS to use when the environment does not set UCX_TLS ("" = UCX default)
  int service_level = -1;     // InfiniBand service level for this traffic class (-1: leave UCX's default)
  bool peer_mode = false;     // multi-process: one worker, endpoints to every process (export_peer/connect_peers)
};

// UCX when asked and it initialises; otherwise a memcpy transport whose name() says why (is_fallback()).
std::unique_ptr<Transport> make_transport(const TransportOptions& options);

// The memcpy stand-in and the UCX transport (throws std::runtime_error if UCX cannot initialise).
std::unique_ptr<Transport> make_memcpy_transport(const std::string& reason);
std::unique_ptr<Transport> make_ucx_transport(const TransportOptions& options);

}  // namespace dualpath::hw
