// The link meter on a worker thread (sim/meter_feed.hpp, `run --threads 2`): the same samples and totals, bit for
// bit, as the meter fed on the spot; the sink's error comes back to the simulation thread; and a native run with a
// worker gives the same link report and completion times as one without.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/meter_feed.hpp"
#include "sim/native/native_backend.hpp"
#include "../sim_fixture.hpp"

using namespace dualpath;
using namespace dualpath::sim;
using namespace dualpath::sim::test;

namespace {

// Bitwise, so that -0.0 against 0.0 or a last-bit difference fails.
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same(const std::vector<LinkSample>& a, const std::vector<LinkSample>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].link, b[i].link) << "sample " << i;
    EXPECT_TRUE(same_bits(a[i].time, b[i].time)) << "sample " << i;
    EXPECT_TRUE(same_bits(a[i].duration, b[i].duration)) << "sample " << i;
    EXPECT_TRUE(same_bits(a[i].model_utilisation, b[i].model_utilisation)) << "sample " << i;
    EXPECT_TRUE(same_bits(a[i].kv_utilisation, b[i].kv_utilisation)) << "sample " << i;
  }
}

// A random held-rate history over `links` links: steps of random length (some crossing several intervals, some
// zero), flows starting, changing rate and ending on random routes, as the native engine feeds the meter. The
// same history goes to `threads` and to a reference fed on the spot; their reports must be identical.
void random_history(int threads, size_t batch, unsigned seed) {
  constexpr int kLinks = 12;
  const std::vector<double> bw(kLinks, 50e9);
  LinkMeter ref_meter(bw, 0.01), meter(bw, 0.01);
  std::vector<LinkSample> ref_samples, samples;
  ref_meter.set_sample_sink([&](const LinkSample& s) { ref_samples.push_back(s); });
  meter.set_sample_sink([&](const LinkSample& s) { samples.push_back(s); });
  MeterFeed ref(ref_meter, 1), feed(meter, threads, batch);
  feed.start();
  EXPECT_EQ(feed.threaded(), threads >= 2);

  struct Flow {
    std::vector<int32_t> links;
    TrafficClass cls;
    double rate;
  };
  std::vector<Flow> flows;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  double t = 0;
  for (int step = 0; step < 20000; ++step) {
    const double r = u(rng);
    t += r < 0.2 ? 0 : r < 0.95 ? u(rng) * 0.004 : u(rng) * 0.05;  // sometimes over several intervals
    ref.advance_to(t);
    feed.advance_to(t);
    const int changes = static_cast<int>(u(rng) * 4);
    for (int c = 0; c < changes; ++c) {
      const double what = u(rng);
      if (flows.empty() || what < 0.35) {  // a flow starts
        Flow f{{}, u(rng) < 0.5 ? TrafficClass::Model : TrafficClass::Kv, 0};
        const int n = 1 + static_cast<int>(u(rng) * MeterFeed::kMaxLinks);
        for (int k = 0; k < n; ++k) f.links.push_back(static_cast<int32_t>((k * 5 + step) % kLinks));
        std::sort(f.links.begin(), f.links.end());
        f.links.erase(std::unique(f.links.begin(), f.links.end()), f.links.end());
        const int m = static_cast<int>(f.links.size());
        ref.change_rate(f.links.data(), m, f.cls, 0, +1);
        feed.change_rate(f.links.data(), m, f.cls, 0, +1);
        flows.push_back(f);
      } else {
        const size_t i = static_cast<size_t>(u(rng) * static_cast<double>(flows.size()));
        Flow& f = flows[i];
        const int m = static_cast<int>(f.links.size());
        if (what < 0.6) {  // it ends
          ref.change_rate(f.links.data(), m, f.cls, -f.rate, -1);
          feed.change_rate(f.links.data(), m, f.cls, -f.rate, -1);
          flows[i] = flows.back();
          flows.pop_back();
        } else {  // a new rate
          const double rate = u(rng) * 50e9 / 3;
          ref.change_rate(f.links.data(), m, f.cls, rate - f.rate, 0);
          feed.change_rate(f.links.data(), m, f.cls, rate - f.rate, 0);
          f.rate = rate;
        }
      }
    }
  }
  t += 0.123;  // the run's end is a bare clock advance, after the last change
  ref.advance_to(t);
  feed.advance_to(t);
  ref.drain();
  feed.drain();
  EXPECT_FALSE(feed.threaded());
  LinkReport ref_report, report;
  ref_report.links.resize(kLinks);
  report.links.resize(kLinks);
  for (int i = 0; i < kLinks; ++i) ref_report.links[static_cast<size_t>(i)].bandwidth = report.links[static_cast<size_t>(i)].bandwidth = 50e9;
  ref_meter.finish(t, ref_report);
  meter.finish(t, report);
  ASSERT_GT(ref_samples.size(), 1000u);  // the history crossed many intervals with traffic
  expect_same(ref_samples, samples);
  for (int i = 0; i < kLinks; ++i) {
    const auto& a = ref_report.links[static_cast<size_t>(i)];
    const auto& b = report.links[static_cast<size_t>(i)];
    EXPECT_TRUE(same_bits(a.bytes_model, b.bytes_model)) << "link " << i;
    EXPECT_TRUE(same_bits(a.bytes_kv, b.bytes_kv)) << "link " << i;
  }
}

}  // namespace

// Batches of 1 and 7 records hand over constantly (and the simulation thread waits on the worker); 4,096 is the
// engine's size.
TEST(MeterFeed, AWorkerGivesTheSameSamplesAndTotalsBitForBit) {
  for (size_t batch : {size_t{1}, size_t{7}, size_t{4096}}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    random_history(2, batch, 7 + batch);
  }
}

TEST(MeterFeed, OneThreadAppliesOnTheSpot) { random_history(1, 7, 3); }

// The links.csv sink fails on the worker: the error reaches the simulation thread at drain(), once; drain(false)
// (the run is already failing) swallows it.
TEST(MeterFeed, TheSinksErrorIsRethrownAtDrain) {
  for (bool rethrow : {true, false}) {
    LinkMeter meter({50e9, 50e9}, 0.01);
    meter.set_sample_sink([](const LinkSample&) { throw std::runtime_error("links.csv: disk full"); });
    MeterFeed feed(meter, 2, 3);
    feed.start();
    const int32_t links[] = {0, 1};
    feed.change_rate(links, 2, TrafficClass::Kv, 0, +1);
    feed.change_rate(links, 2, TrafficClass::Kv, 25e9, 0);
    for (int i = 1; i <= 50; ++i) {
      feed.advance_to(0.005 * i);  // every other step closes an interval: samples for the sink
      feed.change_rate(links, 1, TrafficClass::Kv, 0, 0);
    }
    if (rethrow) {
      EXPECT_THROW(
          {
            try {
              feed.drain();
            } catch (const std::runtime_error& e) {
              EXPECT_STREQ(e.what(), "links.csv: disk full");
              throw;
            }
          },
          std::runtime_error);
    } else {
      EXPECT_NO_THROW(feed.drain(false));
    }
  }
}

// A native run with the meter on a worker: the same completion times and the same link report, bit for bit.
TEST(MeterFeed, ANativeRunWithAWorkerIsIdentical) {
  auto once = [](int threads, std::vector<double>& done, LinkReport& report) {
    SimOptions o;
    o.link_sample_interval = 0.003;
    o.threads = threads;
    NativeBackend b(small_topology(), deployment(1, 1), qos_on(), SimSpec{}, o);
    b.run([&] {
      for (int i = 0; i < 40; ++i) {
        b.storage_read(0, (1 + i % 5) * 1e8, [&] { done.push_back(b.now()); });
        b.transfer(Hop::HbmToRemoteDram, {Loc::Hbm, i % 2}, {Loc::Dram, 1}, (1 + i % 3) * 2e8, TrafficClass::Kv,
                   [&] { done.push_back(b.now()); });
        b.transfer(Hop::Collective, {Loc::Hbm, 0}, {Loc::Hbm, 2 + i % 2}, 5e7, TrafficClass::Model,
                   [&] { done.push_back(b.now()); });
      }
    });
    report = b.links();
  };
  std::vector<double> done1, done2;
  LinkReport r1, r2;
  once(1, done1, r1);
  once(2, done2, r2);
  ASSERT_EQ(done1.size(), 120u);
  ASSERT_EQ(done1.size(), done2.size());
  for (size_t i = 0; i < done1.size(); ++i) EXPECT_TRUE(same_bits(done1[i], done2[i])) << "completion " << i;
  ASSERT_GT(r1.samples.size(), 20u);
  expect_same(r1.samples, r2.samples);
  ASSERT_EQ(r1.links.size(), r2.links.size());
  for (size_t i = 0; i < r1.links.size(); ++i) {
    EXPECT_TRUE(same_bits(r1.links[i].bytes_model, r2.links[i].bytes_model)) << r1.links[i].name;
    EXPECT_TRUE(same_bits(r1.links[i].bytes_kv, r2.links[i].bytes_kv)) << r1.links[i].name;
    EXPECT_TRUE(same_bits(r1.links[i].mean_utilisation, r2.links[i].mean_utilisation)) << r1.links[i].name;
  }
}
