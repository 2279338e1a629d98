// The run's faults as they happen (scenario "faults", docs/faults.md): one record per fault, which snic-down holds
// a node's SNIC down now, and which engines a fault lost. The stages ask it (a read or write that failed: was it a
// fault?) and the fault handlers (fault_handler.hpp) change it. Private to core/cluster/.
#pragma once

#include <cstddef>
#include <vector>

#include "core/cluster/fault_record.hpp"
#include "core/config/fault_kinds.hpp"
#include "core/config/scenario.hpp"  // FaultSpec

namespace dualpath {

class FaultBook {
 public:
  // `engines`: the cluster's GPUs, none lost yet; no fault recorded.
  void reset(size_t engines) { records_.clear(), engine_lost_.assign(engines, false); }
  void add(const FaultSpec& spec) { records_.push_back(FaultRecord{spec}); }

  bool any() const { return !records_.empty(); }
  FaultRecord& operator[](size_t i) { return records_[i]; }
  const FaultRecord& operator[](size_t i) const { return records_[i]; }
  const std::vector<FaultRecord>& records() const { return records_; }

  // The active snic-down fault holding `node`'s SNIC down (-1: it is up).
  int down_fault(int node) const {
    for (size_t k = 0; k < records_.size(); ++k) {
      const FaultRecord& r = records_[k];
      if (holds_snic_down(r.spec.kind) && r.spec.node == node && r.started >= 0 && r.ended < 0)
        return static_cast<int>(k);
    }
    return -1;
  }
  // Engines lost with a node or a CNIC (node-down, cnic-down), for the rest of the run.
  bool engine_lost(int gpu) const { return engine_lost_[static_cast<size_t>(gpu)]; }
  void lose_engine(int gpu) { engine_lost_[static_cast<size_t>(gpu)] = true; }

 private:
  std::vector<FaultRecord> records_;
  std::vector<bool> engine_lost_;
};

}  // namespace dualpath
