// Weighted max-min fair sharing of link capacities between flows: the rate allocation of SimGrid's LMM solver
// for CM02 with every link SHARED and every flow using each of its links once (consumption weight 1), so that
// the native engine (fluid_backend.hpp) gives the rates SimGrid gives.
//
// Progressive filling. Every flow f has a weight w_f (the inverse of SimGrid's sharing penalty). Each link l
// with remaining capacity R_l and unfixed flows F_l offers the level R_l / sum_{f in F_l} w_f; the link with the
// lowest level is a bottleneck, each of its unfixed flows is fixed at rate level x w_f, and that rate is taken
// from every link the flow crosses. Repeat until every flow is fixed. The result is the unique weighted max-min
// allocation: no flow's rate can grow without lowering that of a flow with an equal or lower level.
#pragma once

#include <cstdint>
#include <vector>

namespace dualpath::sim {

class MaxMin {
 public:
  explicit MaxMin(std::vector<double> capacity);  // bytes/s per link, all > 0

  struct Flow {
    const int32_t* links = nullptr;  // the links the flow crosses (no repeats)
    int n = 0;
    double weight = 1;  // > 0
    double rate = 0;    // output of solve()
  };
  // Sets every flow's rate. Links not crossed by any flow are ignored.
  void solve(std::vector<Flow*>& flows);

 private:
  struct LinkState {
    double remaining = 0;
    double weight = 0;   // sum of the weights of its unfixed flows
    int unfixed = 0;     // how many of its flows are unfixed
    std::vector<int> flows;
  };
  std::vector<double> capacity_;
  std::vector<LinkState> state_;
  std::vector<int> active_;  // links crossed by at least one flow in this solve
};

}  // namespace dualpath::sim
