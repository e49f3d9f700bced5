// dump_yaml: the resolved tree after includes and overrides, in document order.
#include <gtest/gtest.h>

#include "sim/config/config_tree.h"
#include "tests/unit/config/config_test_helpers.h"

namespace socsim::config {
namespace {

TEST(ConfigDump, DocumentOrderAfterOverrides) {
  ConfigTree tree = ConfigTree::load_string(
      "zeta: 1\nalpha:\n  peak: 51.2 GB/s\n  list: [1, 2]\nname: \"1.0\"\n", "d.yaml");
  tree.apply_override("alpha.peak=68 GB/s");
  tree.apply_override("beta=true");
  EXPECT_EQ(tree.dump_yaml(),
            "zeta: 1\n"
            "alpha:\n"
            "  peak: 68 GB/s\n"
            "  list:\n"
            "    - 1\n"
            "    - 2\n"
            "name: \"1.0\"\n"
            "beta: true\n");
}

TEST(ConfigDump, RoundTripsThroughLoadString) {
  ConfigTree tree = ConfigTree::load_file(testing::data_file("soc_product.yaml"));
  const std::string dumped = tree.dump_yaml();
  EXPECT_EQ(dumped.find("include"), std::string::npos);
  ConfigTree again = ConfigTree::load_string(dumped, "dump.yaml");
  EXPECT_EQ(again.dump_yaml(), dumped);
  EXPECT_DOUBLE_EQ(again.root().child("dram").quantity("peak", Quantity::kBandwidth), 68e9);
}

}  // namespace
}  // namespace socsim::config
