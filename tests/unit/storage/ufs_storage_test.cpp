// UFS storage against hand-computed timings: latency + bytes at the read/write bandwidth, FIFO
// service one request at a time, DRAM traffic and a DRAM port that binds, statistics and trace.
// Synthetic spec (not the SoC file): read 4 GB/s after 100 us, write 2 GB/s after 150 us.
#include "sim/hw/storage/ufs_storage.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>
#include <vector>

namespace socsim::hw {
namespace {

constexpr double kGB = 1e9;
constexpr Tick us = kMicrosecond;

StorageSpec small_ufs_spec() {
  StorageSpec s;
  s.read_bandwidth = 4 * kGB;
  s.write_bandwidth = 2 * kGB;
  s.read_latency = 100 * us;
  s.write_latency = 150 * us;
  return s;
}

struct Rig {
  explicit Rig(double port_cap = 8 * kGB) : port(dram.add_port("storage", port_cap)) {}
  Simulator sim;
  DramModel dram{sim, 60 * kGB};
  PortId port;
  report::TraceRecorder trace;
  UfsStorage ufs{sim, small_ufs_spec(), dram, port, &trace};
};

Task<> do_read(Simulator& sim, UfsStorage& ufs, std::uint64_t bytes, Tick& done) {
  co_await ufs.read(bytes);
  done = sim.now();
}

Task<> do_write(Simulator& sim, UfsStorage& ufs, std::uint64_t bytes, Tick& done) {
  co_await ufs.write(bytes);
  done = sim.now();
}

TEST(UfsStorage, ReadIsLatencyPlusBytesAtReadBandwidth) {
  Rig r;
  Tick done = 0;
  // 100 us + 4 MB / 4 GB/s (1000 us) = 1100 us; DRAM (8 GB/s port) needs only 500 us of it.
  r.sim.spawn(do_read(r.sim, r.ufs, 4'000'000, done), "read");
  EXPECT_EQ(r.sim.run(), RunResult::kIdle);
  EXPECT_EQ(done, 1100 * us);
  EXPECT_EQ(r.ufs.bytes_read(), 4'000'000u);
  EXPECT_EQ(r.ufs.reads(), 1u);
  EXPECT_EQ(r.ufs.busy().busy(r.sim.now()), 1100 * us);
  EXPECT_EQ(r.dram.port_bytes(r.port), 4'000'000u);
  ASSERT_EQ(r.trace.spans().size(), 1u);
  EXPECT_EQ(r.trace.spans()[0].track, "storage");
  EXPECT_EQ(r.trace.spans()[0].name, "read");
}

TEST(UfsStorage, WriteIsLatencyPlusBytesAtWriteBandwidth) {
  Rig r;
  Tick done = 0;
  // 150 us + 4 MB / 2 GB/s (2000 us) = 2150 us.
  r.sim.spawn(do_write(r.sim, r.ufs, 4'000'000, done), "write");
  r.sim.run();
  EXPECT_EQ(done, 2150 * us);
  EXPECT_EQ(r.ufs.bytes_written(), 4'000'000u);
  EXPECT_EQ(r.ufs.writes(), 1u);
  EXPECT_EQ(r.ufs.bytes_read(), 0u);
  EXPECT_EQ(r.trace.spans().at(0).name, "write");
}

TEST(UfsStorage, RequestsAreServedOneAtATimeInArrivalOrder) {
  Rig r;
  Tick a = 0, b = 0, c = 0;
  // All arrive at t = 0. A read 4 MB: [0, 1100] us. B write 2 MB: 150 + 1000 -> [1100, 2250].
  // C read 1 MB: 100 + 250 -> [2250, 2600].
  r.sim.spawn(do_read(r.sim, r.ufs, 4'000'000, a), "A");
  r.sim.spawn(do_write(r.sim, r.ufs, 2'000'000, b), "B");
  r.sim.spawn(do_read(r.sim, r.ufs, 1'000'000, c), "C");
  r.sim.run(1);
  EXPECT_EQ(r.ufs.queue_length(), 2u);
  r.sim.run();
  EXPECT_EQ(a, 1100 * us);
  EXPECT_EQ(b, 2250 * us);
  EXPECT_EQ(c, 2600 * us);
  EXPECT_EQ(r.ufs.busy().busy(r.sim.now()), 2600 * us);  // back to back, no idle gap
  EXPECT_EQ(r.ufs.bytes_read(), 5'000'000u);
  EXPECT_EQ(r.ufs.bytes_written(), 2'000'000u);
  EXPECT_EQ(r.dram.total_bytes(), 7'000'000u);
  ASSERT_EQ(r.trace.spans().size(), 3u);
  EXPECT_EQ(r.trace.spans()[1].start, 1100 * us);
  EXPECT_EQ(r.trace.spans()[1].end, 2250 * us);
}

TEST(UfsStorage, DramPortCanBind) {
  Rig r(2 * kGB);
  Tick done = 0;
  // Flash would stream 4 MB in 1000 us, but the DRAM port takes 4 MB / 2 GB/s = 2000 us after the
  // 100 us latency: 2100 us.
  r.sim.spawn(do_read(r.sim, r.ufs, 4'000'000, done), "read");
  r.sim.run();
  EXPECT_EQ(done, 2100 * us);
}

TEST(UfsStorage, ZeroBytesIsNotARequest) {
  Rig r;
  Tick done = 1;
  r.sim.spawn(do_read(r.sim, r.ufs, 0, done), "read");
  r.sim.run();
  EXPECT_EQ(done, 0u);
  EXPECT_EQ(r.ufs.reads(), 0u);
  EXPECT_TRUE(r.trace.spans().empty());
}

TEST(UfsStorage, ConstructorChecks) {
  Simulator sim;
  DramModel dram(sim, 60 * kGB);
  const PortId port = dram.add_port("storage", 8 * kGB);
  StorageSpec bad = small_ufs_spec();
  bad.write_bandwidth = 0;
  EXPECT_THROW(UfsStorage(sim, bad, dram, port, nullptr), std::invalid_argument);
  EXPECT_THROW(UfsStorage(sim, small_ufs_spec(), dram, port + 1, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::hw
