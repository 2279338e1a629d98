// Bytes moved per kind of transfer over a run, counted by the core when it asks the backend to move them.
#pragma once

namespace dualpath {

struct TransferTotals {
  double storage_read = 0;      // storage -> node DRAM (SNIC)
  double storage_read_pe = 0;   // ... of which through prefill nodes' SNICs
  double storage_read_de = 0;   // ... of which through decode nodes' SNICs
  double storage_write = 0;     // node DRAM -> storage (persisting Full Blocks)
  double hit_loaded_to_pe = 0;  // hit KV delivered into PE HBM (H2D or from a DE buffer)
  double h2d = 0;               // all DRAM -> HBM loopback copies (PE loads, DE handoffs)
  double d2h = 0;               // HBM -> DRAM loopback copies (decode write-back)
  double pe_to_de = 0;          // PE HBM -> DE buffer over the compute network
  double de_to_pe = 0;          // DE buffer -> PE HBM over the compute network
  double collective = 0;        // model traffic (EP all-to-all) on CNICs
  double pool_read = 0;         // hit KV read from the DRAM pool (policy dram-pool) instead of storage
  double pool_write = 0;        // persisted blocks written through to the DRAM pool
  double de_hbm_to_pe = 0;      // hit KV pulled from decode HBM, GPU to GPU (pe-pull-from-de)
};

}  // namespace dualpath
