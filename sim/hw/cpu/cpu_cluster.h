#pragma once
// The run-time state of one CPU cluster: its cores as a FIFO Resource, which physical core each
// grant got (for per-core DRAM ports and trace tracks), and per-core busy time for energy.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "sim/core/clock_domain.h"
#include "sim/core/resource.h"
#include "sim/core/simulator.h"
#include "sim/core/statistics.h"
#include "sim/hw/cpu/cpu_run_record.h"
#include "sim/hw/cpu/cpu_spec.h"
#include "sim/hw/memory/dram_model.h"

namespace socsim::hw {

class CpuCluster {
 public:
  // Adds one DRAM port per core under `cpu_port`, named "<cpu port>.<cluster><index>" with the
  // core's bandwidth as its cap: a multi-core task is several flows, bounded by the CPU port, the
  // SoC peak and the other masters (HeteroLLM 3.3: one core cannot stream the SoC's bandwidth).
  CpuCluster(Simulator& sim, const CpuClusterSpec& spec, DramModel& dram, PortId cpu_port);
  CpuCluster(const CpuCluster&) = delete;
  CpuCluster& operator=(const CpuCluster&) = delete;

  const CpuClusterSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }
  const ClockDomain& clock() const { return clock_; }
  Resource& cores() { return cores_; }
  const Resource& cores() const { return cores_; }
  PortId core_port(std::uint32_t core) const { return ports_.at(core); }

  // After a Lease of n cores was granted: the n lowest-numbered idle cores, now marked busy.
  // Resource's count guarantees n are idle (a grant is only made when units are available).
  // Core ids: up to 8 without a heap allocation (a claim is made per CPU task).
  using CoreIds = boost::container::small_vector<std::uint32_t, 8>;
  CoreIds claim(std::uint32_t n);
  // Marks the cores idle again. Call BEFORE releasing the Lease, so the next grantee finds them.
  void unclaim(const CoreIds& cores);

  // Core-time busy up to now (sum over cores) and wall time with >= 1 core busy.
  Tick core_busy() const;
  Tick wall_busy() const { return wall_.busy(sim_.now()); }
  const BusyTime& core_busy_time(std::uint32_t core) const { return busy_.at(core); }
  const BusyTime& wall_busy_time() const { return wall_; }

  // True when no core is claimed and none has been since at least `t` ago (or ever).
  bool idle_for_at_least(Tick t) const {
    return claimed_count_ == 0 && (!ever_busy_ || sim_.now() - idle_since_ >= t);
  }

  // A task run alone, replayed (CpuComplex): adds the record's core statistics as if its task had
  // run here from `offset` to now, the cluster idle since its part ended. Throws
  // std::logic_error unless every core is free and the record fits the cluster.
  void absorb(const CpuRunRecord::Cluster& r, Tick offset);

  // When the last core was given back (valid once a core was claimed and given back).
  Tick idle_since() const { return idle_since_; }

  double ops_done() const { return ops_done_; }
  void add_ops(double ops) { ops_done_ += ops; }
  // Core-time busy cores spent waiting on DRAM after their compute was done (part of core_busy).
  Tick core_stalled() const { return stalled_; }
  void add_stalled(Tick t) { stalled_ += t; }

 private:
  Simulator& sim_;
  CpuClusterSpec spec_;
  ClockDomain clock_;
  Resource cores_;
  std::vector<PortId> ports_;
  std::vector<bool> claimed_;
  std::vector<BusyTime> busy_;
  BusyTime wall_;
  std::uint32_t claimed_count_ = 0;
  bool ever_busy_ = false;
  Tick idle_since_ = 0;
  double ops_done_ = 0;
  Tick stalled_ = 0;
};

// Cores claimed for one task: given back to the cluster, then to its FIFO Resource, when the
// task ends or its coroutine frame is destroyed. Shares ownership of the cluster so that frames
// destroyed at teardown (after the CpuComplex) still find it alive.
class CoreGrant {
 public:
  CoreGrant(std::shared_ptr<CpuCluster> cluster, Lease lease, std::uint32_t n)
      : cluster_(std::move(cluster)), lease_(std::move(lease)), cores_(cluster_->claim(n)) {}
  CoreGrant(const CoreGrant&) = delete;
  CoreGrant& operator=(const CoreGrant&) = delete;
  ~CoreGrant() {
    cluster_->unclaim(cores_);  // before the Lease: the next grantee must find the cores idle
    lease_.release();
  }
  const CpuCluster::CoreIds& cores() const { return cores_; }

 private:
  std::shared_ptr<CpuCluster> cluster_;
  Lease lease_;
  CpuCluster::CoreIds cores_;
};

}  // namespace socsim::hw
