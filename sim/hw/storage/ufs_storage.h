#pragma once
// UFS flash storage as one request server: KV-cache swapping (LLMS) and cold weight rows
// (llm.npu) read and write through it. A request costs the per-request latency (command, flash
// access), then streams its bytes at the sequential read or write bandwidth (UFS 4.0: 4.2 GB/s
// read, 2.8 GB/s write, vendor) while the same bytes flow through the storage DMA's DRAM port, so
// a busy DRAM can stretch the transfer. Requests are served one at a time in arrival order: phones
// issue swap I/O from one thread, and a single stream is what the sequential figures describe.
//
//   UfsStorage ufs(sim, soc.storage, dram, dram.add_port("storage", 8e9), &trace);
//   co_await ufs.read(kv_bytes);
#include <cstdint>

#include "sim/core/resource.h"
#include "sim/core/simulator.h"
#include "sim/core/statistics.h"
#include "sim/core/task.h"
#include "sim/core/time.h"
#include "sim/hw/memory/dram_model.h"
#include "sim/hw/storage/storage_spec.h"
#include "sim/report/trace.h"

namespace socsim::hw {

class UfsStorage {
 public:
  // `port` is the storage's DRAM port; `trace` may be null. Throws std::invalid_argument for a
  // non-positive bandwidth or an unknown port.
  UfsStorage(Simulator& sim, const StorageSpec& spec, DramModel& dram, PortId port, report::TraceRecorder* trace);
  UfsStorage(const UfsStorage&) = delete;
  UfsStorage& operator=(const UfsStorage&) = delete;

  // Wait for the requests ahead (FIFO), then latency + bytes / bandwidth (longer if DRAM is the
  // bottleneck). A zero-byte request is not a request: it returns at once and counts nothing.
  // Processes suspended in these must be killed (Simulator::kill_processes) before the storage
  // is destroyed: the queue lease gives itself back to the storage.
  Task<> read(std::uint64_t bytes);
  Task<> write(std::uint64_t bytes);

  // Time spent serving requests (queueing excluded), and totals of finished requests.
  const BusyTime& busy() const { return server_.busy(); }
  std::uint64_t bytes_read() const { return bytes_read_.value(); }
  std::uint64_t bytes_written() const { return bytes_written_.value(); }
  std::uint64_t reads() const { return reads_.value(); }
  std::uint64_t writes() const { return writes_.value(); }
  std::size_t queue_length() const { return server_.queue_length(); }
  const StorageSpec& spec() const { return spec_; }

 private:
  Task<> serve(std::uint64_t bytes, Tick latency, double bandwidth, const char* what);

  Simulator& sim_;
  StorageSpec spec_;
  DramModel& dram_;
  PortId port_;
  report::TraceRecorder* trace_;
  Resource server_;  // one request at a time, FIFO
  Counter bytes_read_, bytes_written_, reads_, writes_;
};

}  // namespace socsim::hw
