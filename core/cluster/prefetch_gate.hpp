// The gate between prefill and decode for decode-side prefetch (policy de-prefetch, SGLang PR #26227): the DE node
// reads the request's hit from storage into its own buffer while the PE reads and prefills, and the PE sends only
// the new tokens' KV. Decode may take the request only once both are in: SGLang gates the KV receipt on the
// decode-side restore (HiCacheRestoreGatedKVReceiver). A request whose prefill ends first waits here, charged to
// the read it waits for. Requests without a prefetch pass straight through. Private to core/cluster/.
#pragma once

#include <cstdint>
#include <unordered_set>

#include "core/cluster/request_accounts.hpp"
#include "core/cluster/stage.hpp"
#include "core/mutation/mutant.hpp"
#include "core/vocab/request.hpp"

namespace dualpath {

class PrefetchGate final : public RequestStage, public PrefetchListener {
 public:
  PrefetchGate(RequestAccounts& accounts, RequestStage& next) : accounts_(accounts), next_(next) {}

  void accept(Request& r) override {
    const ReadHalf p = r.read.prefetch();
    if ((p == ReadHalf::Queued || p == ReadHalf::Reading) && !mutant("prefetch_not_awaited")) {
      held_.insert(r.id);
      accounts_.set_wait(r, WaitCause::Read);
      return;
    }
    next_.accept(r);
  }
  // The DE buffer holds r's hit now: a request held here goes on (a lost attempt does not).
  void prefetched(Request& r) override {
    if (held_.erase(r.id) > 0 && !r.lost) next_.accept(r);
  }
  size_t held() const { return held_.size(); }

 private:
  RequestAccounts& accounts_;
  RequestStage& next_;
  std::unordered_set<int64_t> held_;
};

}  // namespace dualpath
