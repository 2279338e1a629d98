// Backend::transfer_group's default (the hardware backend's, and any backend's that does not do better): each
// member is a transfer() of its own, and the group's one callback runs when the last of them completes.
#include <gtest/gtest.h>

#include <stdexcept>

#include "fake_backend.hpp"

namespace dualpath::test {
namespace {

TEST(BackendGroup, DefaultRunsOneCallbackWhenTheLastMemberEnds) {
  FakeBackend be(FakeRates{});
  int calls = 0;
  double at = -1;
  be.transfer_group(Hop::Collective,
                    {{{Loc::Hbm, 0}, {Loc::Hbm, 8}, 1e9}, {{Loc::Hbm, 1}, {Loc::Hbm, 9}, 2e9},
                     {{Loc::Hbm, 2}, {Loc::Hbm, 10}, 0.5e9}},
                    TrafficClass::Model, [&] {
                      ++calls;
                      at = be.now();
                    });
  be.run();
  EXPECT_EQ(calls, 1);
  EXPECT_DOUBLE_EQ(at, 2e9 / 50e9);  // the 2 GB member, alone on GPU 9's CNIC
  ASSERT_EQ(be.ops().size(), 3u);
  for (const auto& op : be.ops()) EXPECT_EQ(op.kind, "collective");
  EXPECT_THROW(be.transfer_group(Hop::Collective, {}, TrafficClass::Model, [] {}), std::invalid_argument);
}

TEST(BackendGroup, AfterAllRunsOnItsLastCall) {
  int ran = 0;
  const Done d = after_all(3, [&] { ++ran; });
  d();
  d();
  EXPECT_EQ(ran, 0);
  d();
  EXPECT_EQ(ran, 1);
}

}  // namespace
}  // namespace dualpath::test
