// Link accounting: exact interval averages, consistency between samples and totals, utilisation <= 1, and
// byte-identical reports across runs (two child processes, since SimGrid allows one engine per process).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "sim/link_meter.hpp"
#include "sim_fixture.hpp"

namespace dualpath::sim::test {
namespace {

class SimLinks : public EngineTest {};

TEST_P(SimLinks, IntervalAveragesSplitAStepExactly) {
  // 1 GB over a free 50 GB/s SNIC from 0 to 20 ms, run ending at 30 ms, 7 ms intervals:
  // [0,7) full, [7,14) full, [14,21) busy 6 of 7 ms, [21,28) and [28,30) idle (no rows).
  SimOptions o;
  o.link_sample_interval = 0.007;
  auto bp = make(small_topology(), deployment(1, 0), qos_on(), SimSpec{}, o);
  Simulator& b = *bp;
  b.run([&] {
    b.storage_read(0, 1e9, [] {});
    b.timer(0.030, [] {});
  });
  const LinkReport& r = b.links();
  std::vector<LinkSample> snic;
  for (const auto& s : r.samples)
    if (r.links[static_cast<size_t>(s.link)].name == "snic0_down") snic.push_back(s);
  ASSERT_EQ(snic.size(), 3u);
  EXPECT_NEAR(snic[0].utilisation(), 1.0, 1e-9);
  EXPECT_NEAR(snic[1].utilisation(), 1.0, 1e-9);
  EXPECT_NEAR(snic[2].time, 0.014, 1e-12);
  EXPECT_NEAR(snic[2].utilisation(), 6.0 / 7.0, 1e-9);
  EXPECT_DOUBLE_EQ(snic[2].kv_utilisation, snic[2].utilisation());
  EXPECT_NEAR(r.end_time, 0.030, 1e-12);
  EXPECT_NEAR(link_named(r, "snic0_down").mean_utilisation, 20.0 / 30.0, 1e-9);
}

TEST_P(SimLinks, MeterFlushesPartialLastInterval) {
  LinkMeter m({10.0}, 1.0);
  m.add_rate(0, TrafficClass::Model, 5.0);
  m.close_step(0.0, 2.5);
  LinkReport r;
  r.links.push_back(LinkInfo{"l", LinkClass::Dram, 10.0});
  m.finish(2.5, r);
  ASSERT_EQ(r.samples.size(), 3u);
  EXPECT_DOUBLE_EQ(r.samples[2].time, 2.0);
  EXPECT_DOUBLE_EQ(r.samples[2].duration, 0.5);
  EXPECT_DOUBLE_EQ(r.samples[2].model_utilisation, 0.5);
  EXPECT_DOUBLE_EQ(r.links[0].bytes_model, 12.5);
}

// A busy 2P4D cluster: many overlapping transfers of every kind with pseudo-random sizes and start times.
void random_workload(Simulator& b, int transfers, uint32_t seed) {
  auto rng = std::make_shared<std::mt19937>(seed);
  const int gpus = 6 * 2, nodes = 6;
  auto one = [&b, rng, gpus, nodes] {
    std::uniform_int_distribution<int> kind(0, 5), gpu(0, gpus - 1), node(0, nodes - 1);
    std::uniform_real_distribution<double> size(1e6, 5e8);
    const double bytes = size(*rng);
    const int g = gpu(*rng);
    int h = gpu(*rng);
    if (h == g) h = (g + 1) % gpus;
    switch (kind(*rng)) {
      case 0: b.storage_read(node(*rng), bytes, [] {}); break;
      case 1: b.storage_write(node(*rng), bytes, [] {}); break;
      case 2: b.transfer(Hop::H2D, {Loc::Dram, g}, {Loc::Hbm, g}, bytes, TrafficClass::Kv, [] {}); break;
      case 3: b.transfer(Hop::HbmToRemoteDram, {Loc::Hbm, g}, {Loc::Dram, h}, bytes, TrafficClass::Kv, [] {}); break;
      case 4: b.transfer(Hop::RemoteDramToHbm, {Loc::Dram, g}, {Loc::Hbm, h}, bytes, TrafficClass::Kv, [] {}); break;
      default: b.transfer(Hop::Collective, {Loc::Hbm, g}, {Loc::Hbm, h}, bytes, TrafficClass::Model, [] {}); break;
    }
  };
  b.run([&b, rng, one, transfers] {
    std::uniform_real_distribution<double> when(0.0, 0.5);
    for (int i = 0; i < transfers; ++i) b.timer(when(*rng), one);
  });
}

Topology busy_topology() {
  Topology t = small_topology();
  t.dram_bw = 120e9;  // make DRAM contend too
  t.nic_latency = 2e-6;
  t.storage.servers = 2;
  t.storage.server_nic_bw = 80e9;
  t.storage.ssd_read_bw = 60e9;
  t.storage.ssd_write_bw = 30e9;
  t.storage.latency = 50e-6;
  return t;
}

TEST_P(SimLinks, UtilisationNeverExceedsOneAndSamplesAddUpToTotals) {
  SimOptions o;
  o.link_sample_interval = 0.01;
  auto bp = make(busy_topology(), deployment(2, 4), qos_on(), SimSpec{}, o);
  Simulator& b = *bp;
  random_workload(b, 2000, 7);
  const LinkReport& r = b.links();
  ASSERT_FALSE(r.samples.empty());
  double max_util = 0;
  std::vector<double> from_samples(r.links.size(), 0.0);
  for (const auto& s : r.samples) {
    max_util = std::max(max_util, s.utilisation());
    EXPECT_GE(s.model_utilisation, 0);
    EXPECT_GE(s.kv_utilisation, 0);
    const auto& l = r.links[static_cast<size_t>(s.link)];
    from_samples[static_cast<size_t>(s.link)] += s.utilisation() * l.bandwidth * s.duration;
  }
  EXPECT_LE(max_util, 1.0 + 1e-9);
  EXPECT_GT(max_util, 0.99);  // the workload does saturate something
  for (size_t i = 0; i < r.links.size(); ++i)
    EXPECT_TRUE(near_rel(from_samples[i], r.links[i].bytes(), 1e-9) || r.links[i].bytes() == 0) << r.links[i].name;
  // Every byte a transfer moves is counted once on every link of its route; a SNIC carries storage bytes only.
  double snic = 0;
  for (const auto& l : r.links)
    if (l.cls == LinkClass::SnicDown || l.cls == LinkClass::SnicUp) snic += l.bytes();
  double stor_nic = 0;
  for (const auto& l : r.links)
    if (l.name.find("_nic_") != std::string::npos) stor_nic += l.bytes();
  EXPECT_TRUE(near_rel(snic, stor_nic, 1e-9));
  EXPECT_EQ(b.stats().transfers, 2000u);
}

// Serialises a report bit-exactly (doubles as raw bytes).
std::string fingerprint(const Simulator& b) {
  std::string out;
  auto put = [&out](double v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  const LinkReport& r = b.links();
  put(r.end_time);
  for (const auto& l : r.links) {
    put(l.bytes_model);
    put(l.bytes_kv);
  }
  for (const auto& s : r.samples) {
    put(s.time);
    put(static_cast<double>(s.link));
    put(s.model_utilisation);
    put(s.kv_utilisation);
  }
  return out;
}

// Runs `body` in a child process and returns what it wrote to the pipe.
std::string in_child(const std::function<std::string()>& body) {
  int fd[2];
  if (pipe(fd) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    const std::string s = body();
    size_t off = 0;
    while (off < s.size()) {
      const ssize_t n = write(fd[1], s.data() + off, s.size() - off);
      if (n <= 0) _exit(2);
      off += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fd[1]);
  std::string out;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("child failed");
  return out;
}

TEST_P(SimLinks, IdenticalRunsGiveIdenticalReports) {
  auto run = [] {
    SimOptions o;
    o.link_sample_interval = 0.01;
    auto bp = make(busy_topology(), deployment(2, 4), qos_on(), SimSpec{}, o);
    Simulator& b = *bp;
    random_workload(b, 1000, 11);
    return fingerprint(b);
  };
  const std::string a = in_child(run);
  const std::string c = in_child(run);
  ASSERT_GT(a.size(), 1000u);
  EXPECT_TRUE(a == c);
}

DUALPATH_BOTH_ENGINES(SimLinks);

}  // namespace
}  // namespace dualpath::sim::test
