#include "sim/hw/storage/storage_spec.h"

namespace socsim::hw {

using config::Quantity;

StorageSpec parse_storage_spec(const config::Section& s) {
  StorageSpec st;
  st.read_bandwidth = s.positive_quantity("read_bandwidth", Quantity::kBandwidth);
  st.write_bandwidth = s.positive_quantity("write_bandwidth", Quantity::kBandwidth);
  st.read_latency = s.time("read_latency");
  st.write_latency = s.time("write_latency");
  return st;
}

}  // namespace socsim::hw
