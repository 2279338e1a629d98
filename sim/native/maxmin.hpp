// Weighted max-min fair sharing of link capacities between flows: the rate allocation of SimGrid's LMM solver
// for CM02 with every link SHARED and every flow using each of its links once (consumption weight 1), so that
// the native engine (native_backend.hpp) gives the rates SimGrid gives.
//
// Progressive filling. Every flow f has a weight w_f (the inverse of SimGrid's sharing penalty). Each link l
// with remaining capacity R_l and unfixed flows F_l offers the level R_l / sum_{f in F_l} w_f; the link with the
// lowest level is a bottleneck, each of its unfixed flows is fixed at rate level x w_f, and that rate is taken
// from every link the flow crosses. Repeat until every flow is fixed. The result is the unique weighted max-min
// allocation: every flow crosses a saturated link on which no flow has a higher rate per unit of weight.
//
// Two exact reductions keep each solve small:
//  - Redundant links are left out. A flow can never exceed u_f, the capacity of its narrowest link a_f (the
//    first of the smallest on its route), so each flow carries u_f as its own bound (a private link of capacity
//    u_f). The flows of a link l that share a narrowest link a != l can together never exceed C_a, so l's load is
//    at most B_l = (flows whose narrowest link is l) x C_l + sum over the distinct other narrowest links a of C_a.
//    A link with one flow, or with B_l <= C_l, can never bind, and dropping a constraint the others imply leaves
//    the feasible set, hence the unique max-min allocation, unchanged. (No circularity: a link that another
//    link's bound relies on is the narrowest link of some of its flows, so it is either kept or carries a single
//    flow, whose own bound covers it.) On a DS 660B node most PCIe links, many CNIC directions and usually the
//    DRAM are redundant at any moment.
//  - Active set. Of the links that may bind, only the active ones are constraints: a link joins when the rates
//    solved without it overload it, and leaves when a solve leaves it with slack. If the allocation solved with
//    a subset of the constraints satisfies all of them, it is the max-min allocation of all of them (every flow
//    still has a saturated link on which its level is highest), so this is exact; it keeps a link that binds
//    only now and then (a node's DRAM) from coupling the whole cluster into one component the rest of the time.
//  - Incremental solves. The allocation of one connected component (flows linked through active links) does not
//    depend on any other, so solve() re-solves only the components touched by flows added or removed (and by
//    links that joined or left the constraint set) since the last solve; the others keep their rates.
//  - Departures re-fill only above their level (optional, `keep_below_departures`). Let a flow f leave at level
//    L_f = rate / weight. It crossed no link that saturated below L_f (it would have been fixed there), so the
//    progressive filling up to L_f is the same with or without it, and every flow fixed below L_f keeps its
//    rate. A solve after departures only (no arrival, no capacity change) therefore keeps the flows below the
//    lowest departed level, takes their rates off their links, and fills the rest over what is left; the
//    component is walked only through those flows. The same allocation up to rounding (the arithmetic differs
//    from a whole re-solve in the last bits).
//  - Arrivals re-fill only above their first saturation (optional, `keep_below_arrivals`). Add flows N to a
//    solved allocation and run progressive filling again: as long as no link crossed by a flow of N saturates,
//    the filling is the one it was (the new flows only add load to their own links), so every flow fixed below
//    the lowest level T at which one of their links saturates keeps its rate. T is found per link l crossed by a
//    new flow from the loads alone: F_l(x) = sum over l's old flows g of min(rate_g, x w_g) (below T each old flow
//    rises as it did, or stays where it was fixed) + sum over its new flows f of min(x w_f, u_f), and l saturates
//    at the least x with F_l(x) >= C_l (arrival_threshold()). Departures in the same solve only lower F_l, so
//    T = min(lowest departed level, every such crossing) is sound for a mixed solve too. The kept flows are then
//    handled as for departures; the same allocation up to rounding. A link that joins the constraint set after a
//    pass is a new constraint on a solved system, and the same argument applies: the next pass keeps the flows
//    below the level at which the first joined link saturates under the pass's rates.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace dualpath::sim {

class MaxMin {
 public:
  struct Options {
    // false: the lowest link level is looked up by a full scan after every step (the same result, slower: tests).
    bool track_lowest = true;
    // A solve after departures only keeps the flows below the lowest departed level (above).
    bool keep_below_departures = false;
    // A solve after arrivals keeps the flows below the level at which a new flow's link first saturates (above).
    bool keep_below_arrivals = false;
  };
  // bytes/s per link, all > 0.
  explicit MaxMin(std::vector<double> capacity) : MaxMin(std::move(capacity), Options{}) {}
  MaxMin(std::vector<double> capacity, Options options);

  static constexpr int kMaxLinks = 8;  // links per flow (a fabric route has at most Route::kMaxLinks)

  // A flow over `n` distinct links (1 <= n <= kMaxLinks; copied) with weight > 0. Returns its id; ids of removed
  // flows are reused.
  int add(const int32_t* links, int n, double weight);
  void remove(int id);
  // Changes a link's capacity (> 0; a fault). Its flows' bounds and every B_l they enter are recomputed, and they
  // are re-solved at the next solve().
  void set_capacity(int link, double capacity);
  // Brings every flow's rate up to date.
  void solve();
  double rate(int id) const { return flows_[static_cast<size_t>(id)].rate; }
  // The flows re-solved by the last solve(): the only ones whose rate may have changed.
  const std::vector<int>& solved() const { return changed_; }
  uint64_t solved_flows() const { return changed_.size(); }

 private:
  struct FlowRec {
    std::array<int32_t, kMaxLinks> links{};  // inline: every solve walks them
    std::array<int32_t, kMaxLinks> slot{};   // its index in each link's LinkSet::flows (remove() needs no search)
    int n = 0;
    double weight = 1;
    double bound = 0;  // u_f: the smallest capacity on its route
    int narrowest = -1;  // a_f: the first link on its route with that capacity
    double rate = 0;   // < 0 while unfixed during a solve
    double prev = 0;   // its rate before the solve in progress (link loads are updated by the difference)
    uint32_t mark = 0;
    uint32_t solve_mark = 0;  // listed in changed_ by the solve() of this id
    bool dirty = false;
    bool fresh = false;  // added since the last solve: never kept at its (unsolved) rate
  };
  // What a solve reads of a link, kept small so that walking routes stays in cache; its flow set is in LinkSet.
  struct LinkRec {
    double capacity = 0;
    double remaining = 0;
    // The sum of its flows' rates, kept up to date incrementally (loads change only when rates do) so that the
    // overload check after a solve does not re-sum every flow of every link it looks at. Rounding drift is
    // bounded by re-summing at least every kResum updates; the check re-sums before it activates a link.
    double load = 0;
    uint32_t updates = 0;
    double weight = 0;  // sum of the weights of its unfixed flows
    int unfixed = 0;
    uint32_t mark = 0;
    bool dirty = false;
    bool binding = false;  // may bind (not redundant): two or more flows and B_l > C_l
    bool active = false;   // in the constraint set (implies binding)
    double kept = 0;  // during a solve: the rates of its flows kept (below the pass's threshold), off its capacity
    uint32_t checked = 0;  // epoch of its last overload check
    int slot = -1;         // its index in link_cand_ during a solve
    uint32_t crossed = 0;  // solve_id_ of the last arrival_threshold() that looked at it
  };
  struct LinkSet {
    std::vector<int> flows;
    // B_l: `self` flows whose narrowest link is this one, and per other narrowest link, how many of its flows.
    int self = 0;
    std::vector<std::pair<int, int>> groups;
    double load_bound = 0;
  };
  void touch_link(int link);
  void update_binding(int link);
  void count_group(int link, const FlowRec& f, int delta);
  void visit(int flow, double keep_below);
  double arrival_threshold();
  double saturation_level(int link);
  void solve_pass(bool first, double keep_below);
  void fill();
  // An active link with more than this fraction of its capacity left leaves the set; an inactive one loaded
  // beyond capacity x (1 + kOverload) joins it. Neither changes the allocation, only the work per solve.
  static constexpr double kSlack = 1e-3;
  static constexpr double kOverload = 1e-9;
  // An inactive link whose incremental load is within this fraction of its capacity below the activation
  // threshold is re-summed exactly; further below, the drift (< 1e-9 of capacity) cannot hide an overload.
  static constexpr double kNear = 1e-6;
  static constexpr uint32_t kResum = 4096;
  double exact_load(int link) const;

  std::vector<FlowRec> flows_;
  std::vector<int> free_;
  std::vector<LinkRec> links_;
  std::vector<LinkSet> sets_;  // by link id, as links_
  std::vector<int> dirty_links_, dirty_flows_;
  uint32_t epoch_ = 0;
  uint32_t solve_id_ = 0;
  std::vector<int> changed_;
  std::vector<int> comp_links_, comp_flows_, stack_;
  std::vector<int> check_;  // inactive links that may bind, crossed by flows re-solved in this pass
  std::vector<std::pair<double, int>> levels_;  // saturation_level()'s flows of one link by level
  std::vector<int> joined_;  // links the last pass activated (the next pass re-solves their components)
  // During fill(): the re-solved flows by the level of their own bound, and the active links with their levels.
  std::vector<std::pair<double, int>> by_bound_;
  std::vector<int> link_cand_;
  std::vector<double> link_levels_;
  bool links_moved_ = false;  // a link level changed since the lowest was last looked up
  // The lowest link level and its slot (of equal levels, the first slot), kept as levels change so that a full
  // scan is needed only when the lowest link's own level rises or it leaves (in progressive filling every level
  // only rises as flows are fixed, so that is about once per bottleneck).
  void set_level(size_t slot, double level);
  bool track_lowest_ = true;
  // Since the last solve: the lowest level of a departed flow, whether a flow arrived (which can lower levels
  // anywhere in a component: the next solve re-fills whole components, or above arrival_threshold()) and whether
  // a capacity changed (whole components, always).
  bool keep_below_departures_ = false;
  bool keep_below_arrivals_ = false;
  double departed_level_ = 0;
  bool arrived_ = false;
  bool capacity_changed_ = false;
  bool lowest_stale_ = true;
  size_t lowest_slot_ = 0;
  double lowest_level_ = 0;
};

}  // namespace dualpath::sim
