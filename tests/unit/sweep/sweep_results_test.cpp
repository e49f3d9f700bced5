// Sweep results: CSV form, JSON round trip, merging shards (and refusing mismatched ones).
#include <gtest/gtest.h>

#include "sim/config/config_error.h"
#include "sim/sweep/parallel_runs.h"
#include "sim/sweep/sweep_results.h"

namespace socsim::sweep {
namespace {

SweepResults table(std::vector<std::size_t> runs) {
  SweepResults r;
  r.name = "t";
  r.spec = "t.yaml";
  r.fingerprint = 0xabcdef;
  r.runs_total = 4;
  r.shard = "0/2";
  r.columns = {"npu.tcm", "note"};
  r.metrics = {"ttft_ms", "decode_ms_per_token"};
  for (auto i : runs) r.rows.push_back({i, {std::to_string(i) + "MiB", "a,\"b\""}, {0.1 * static_cast<double>(i) + 1, std::nullopt}, {}});
  return r;
}

TEST(SweepResults, CsvQuotesFieldsAndLeavesMissingMetricsEmpty) {
  EXPECT_EQ(to_csv(table({0, 2})),
            "run,npu.tcm,note,ttft_ms,decode_ms_per_token\n"
            "0,0MiB,\"a,\"\"b\"\"\",1,\n"
            "2,2MiB,\"a,\"\"b\"\"\",1.2,\n");
}

TEST(SweepResults, JsonRoundTrips) {
  const auto t = table({1, 3});
  const auto back = results_from_json(to_json(t), "x");
  EXPECT_EQ(to_json(back).dump(), to_json(t).dump());
  EXPECT_THROW(results_from_json(nlohmann::ordered_json::object(), "x"), config::ConfigError);
}

TEST(SweepResults, FailedRunsCarryTheirMessageThroughCsvAndJson) {
  auto t = table({0, 2});
  EXPECT_EQ(to_csv(t).find("error"), std::string::npos);  // no column while every run ran
  t.rows[1].metrics = {std::nullopt, std::nullopt};
  t.rows[1].error = "--max-host-memory: over 1 GiB, \"x\"";
  EXPECT_EQ(failed_runs(t), 1u);
  EXPECT_EQ(to_csv(t),
            "run,npu.tcm,note,ttft_ms,decode_ms_per_token,error\n"
            "0,0MiB,\"a,\"\"b\"\"\",1,,\n"
            "2,2MiB,\"a,\"\"b\"\"\",,,\"--max-host-memory: over 1 GiB, \"\"x\"\"\"\n");
  const auto j = to_json(t);
  EXPECT_EQ(j["failed_runs"], 1);
  const auto back = results_from_json(j, "x");
  EXPECT_EQ(back.rows[1].error, t.rows[1].error);
  EXPECT_EQ(to_json(back).dump(), j.dump());
}

// Part `shard` ("1/2") of the sweep with these runs.
SweepResults part(std::vector<std::size_t> runs, const char* shard) {
  auto t = table(std::move(runs));
  t.shard = shard;
  return t;
}

TEST(SweepResults, MergeOrdersRunsAndChecksCompleteness) {
  const auto merged = merge_results({{"a", table({1, 3})}, {"b", part({0, 2}, "1/2")}});
  ASSERT_EQ(merged.rows.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(merged.rows[i].run, i);
  EXPECT_EQ(merged.shard, "merged");
  try {
    auto odd = table({1, 3});
    odd.shard = "1/2";
    merge_results({{"a", odd}});
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("2 of 4 runs are in no shard: 0, 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("missing shards: run `socsim sweep` with --shard 0/2 and merge again"), std::string::npos) << e.what();
  }
  try {
    merge_results({{"a", table({1, 3})}, {"b", part({0, 1, 2}, "1/2")}});
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("run 1 is also in a (overlapping shards)"), std::string::npos) << e.what();
  }
  auto other = part({0, 2}, "1/2");
  other.fingerprint = 1;
  EXPECT_THROW(merge_results({{"a", table({1, 3})}, {"b", other}}), config::ConfigError);
}

TEST(SweepResults, AMergeRefusesOnePartTwiceAndAFailedRunWithMetrics) {
  // Two folders labelled 0/2 (the same part run twice, or an edited label): refused even when
  // their runs happen not to overlap.
  try {
    merge_results({{"a", table({1, 3})}, {"b", table({0, 2})}});
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.key(), "shard");
    EXPECT_NE(std::string(e.what()).find("is shard 0/2, as a is: merge each part of the sweep once"), std::string::npos) << e.what();
  }
  // A failed run reports no metrics; a row with both was edited (it counted as failed and plotted).
  auto j = to_json(table({1, 3}));
  j["runs"][0]["error"] = "it failed";
  try {
    results_from_json(j, "a/results.json");
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("run 1 has both an error and metrics: a failed run reports none"), std::string::npos) << e.what();
  }
}

// Each row carries a check of its index and keys under the sweep's fingerprint: a value the sweep
// never gave that run (an edited file) or a row moved to another index is refused by name; files
// written before the check still load; an edited metric is not a configuration and still loads.
TEST(SweepResults, ARowWhoseKeysAreNotTheSweepsIsRefused) {
  const auto good = to_json(table({1, 3}));
  ASSERT_TRUE(good["runs"][0].contains("check"));
  EXPECT_NE(good["runs"][0]["check"], good["runs"][1]["check"]);
  auto edited = good;
  edited["runs"][1]["keys"]["npu.tcm"] = "60MiB";
  try {
    results_from_json(edited, "a/results.json");
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.key(), "runs[1].keys");
    EXPECT_NE(std::string(e.what()).find("run 3's keys (npu.tcm=60MiB note=a,\"b\") are not the ones this sweep gave run 3"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("run the shard again"), std::string::npos) << e.what();
  }
  auto moved = good;
  moved["runs"][1]["run"] = 2;  // run 3's keys and check under index 2
  EXPECT_THROW(results_from_json(moved, "a"), config::ConfigError);
  auto other_sweep = good;
  other_sweep["fingerprint"] = "0000000000000001";  // the checks were made under another fingerprint
  EXPECT_THROW(results_from_json(other_sweep, "a"), config::ConfigError);
  auto not_text = good;
  not_text["runs"][0]["check"] = 7;
  EXPECT_THROW(results_from_json(not_text, "a"), config::ConfigError);
  auto older = good;
  for (auto& run : older["runs"]) run.erase("check");
  EXPECT_EQ(results_from_json(older, "a").rows.size(), 2u);
  // A file checks all its rows or none: an edited row whose check was removed is refused.
  auto stripped = edited;
  stripped["runs"][1].erase("check");
  try {
    results_from_json(stripped, "a/results.json");
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("run 3 has no check, though other rows of the file have one"), std::string::npos) << e.what();
  }
  // Who owns a folder is read without the checks (an edited file is still another sweep's).
  EXPECT_EQ(results_from_json(edited, "a", false).rows[1].values[0], "60MiB");
  EXPECT_EQ(results_from_json(stripped, "a", false).fingerprint, 0xabcdefu);
  // ... and from the header alone: rows damaged in any way (a metric turned to text, keys gone)
  // leave the file the sweep's it says.
  auto damaged = good;
  damaged["runs"][0]["metrics"]["ttft_ms"] = "54.9 (checked by hand)";
  damaged["runs"][1].erase("keys");
  EXPECT_THROW(results_from_json(damaged, "a", false), config::ConfigError);
  EXPECT_EQ(results_header_from_json(damaged, "a").fingerprint, 0xabcdefu);
  EXPECT_TRUE(results_header_from_json(damaged, "a").rows.empty());
  EXPECT_THROW(results_header_from_json(nlohmann::ordered_json::array(), "a"), config::ConfigError);
  auto metric = good;
  metric["runs"][0]["metrics"]["ttft_ms"] = 5.0;
  EXPECT_EQ(*results_from_json(metric, "a").rows[0].metrics[0], 5.0);
}

// results.json is written with invalid UTF-8 replaced (a value from a file name that is not
// UTF-8): the check is made on the text as written, so such a file reads back whole.
TEST(SweepResults, AValueThatIsNotUtf8ReadsBackUnderItsCheck) {
  auto t = table({1, 3});
  t.rows[0].values[0] = "soc-\xED\xA0\x80.yaml";
  const std::string text = to_json(t).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  const auto back = results_from_json(nlohmann::ordered_json::parse(text), "a");
  EXPECT_EQ(back.rows[0].values[0], "soc-\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD.yaml");  // U+FFFD a byte, as the file holds it
}

// Shards run from other inputs: the merge names the inputs that changed where both recorded them,
// the fingerprints otherwise (files written before the inputs were recorded); the record survives
// results.json, and a record that is not socsim's is refused.
TEST(SweepResults, AMergeOfOtherInputsNamesWhatChanged) {
  auto a = table({1, 3}), b = table({0, 2});
  a.inputs = {{"the spec s.yaml", "aa"}, {"--soc x.yaml", "01"}, {"socsim version", "\"0.9\""}};
  b.inputs = {{"the spec s.yaml", "aa"}, {"--soc x.yaml", "02"}, {"--model m.json", "03"}};
  b.fingerprint = 1;
  const auto back = results_from_json(to_json(b), "b/results.json");
  EXPECT_EQ(back.inputs, b.inputs);
  try {
    merge_results({{"a/results.json", a}, {"b/results.json", back}});
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.key(), "inputs");
    EXPECT_NE(std::string(e.what()).find("against it, --soc x.yaml changed; --model m.json is new; socsim version is no longer used"),
              std::string::npos)
        << e.what();
  }
  b.inputs.clear();  // an earlier socsim's shard: the fingerprint alone
  try {
    merge_results({{"a/results.json", a}, {"b/results.json", b}});
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.key(), "fingerprint");
  }
  b.inputs = a.inputs;  // the same inputs recorded, yet another fingerprint (an edited file): still refused
  try {
    merge_results({{"a/results.json", a}, {"b/results.json", b}});
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.key(), "fingerprint");
  }
  auto j = to_json(a);
  j["inputs"]["--soc x.yaml"] = 5;
  EXPECT_THROW(results_from_json(j, "a/results.json"), config::ConfigError);
  j["inputs"] = "x";
  EXPECT_THROW(results_from_json(j, "a/results.json"), config::ConfigError);
}

// A damaged or hand-edited file names the value that is wrong, where it is and what was expected.
TEST(SweepResults, AWrongValueIsNamedByItsPathInTheFile) {
  const auto message = [](const nlohmann::ordered_json& j) -> std::string {
    try {
      results_from_json(j, "a/results.json");
    } catch (const config::ConfigError& e) {
      return e.what();
    }
    return "accepted";
  };
  const auto good = to_json(table({1, 3}));
  auto j = good;
  j["runs"][1]["metrics"]["ttft_ms"] = "nan";
  EXPECT_NE(message(j).find("not a sweep results.json: runs[1].metrics.ttft_ms: expected a number, got \"nan\""), std::string::npos) << message(j);
  j = good;
  j["runs"][0]["keys"]["npu.tcm"] = 16;
  EXPECT_NE(message(j).find("runs[0].keys.npu.tcm: expected a string, got 16"), std::string::npos) << message(j);
  j = good;
  j["columns"] = "npu.tcm";
  EXPECT_NE(message(j).find("columns: expected a list of names, got \"npu.tcm\""), std::string::npos) << message(j);
  j = good;
  j["metrics"][1] = nullptr;
  EXPECT_NE(message(j).find("metrics[1]: expected a string, got null"), std::string::npos) << message(j);
  j = good;
  j["runs"][1]["error"] = 3;
  EXPECT_NE(message(j).find("runs[1].error: expected a string, got 3"), std::string::npos) << message(j);
  j = good;
  j["runs"][0].erase("keys");
  EXPECT_NE(message(j).find("runs[0].keys: missing"), std::string::npos) << message(j);
  j = good;
  j["runs"] = nlohmann::ordered_json::array({5});
  EXPECT_NE(message(j).find("runs[0]: expected an object, got 5"), std::string::npos) << message(j);
  j["runs"] = {{"run", 0}};
  EXPECT_NE(message(j).find("runs: expected a list of runs, got {\"run\":0}"), std::string::npos) << message(j);
  j = good;
  j.erase("shard");
  EXPECT_NE(message(j).find("shard: missing"), std::string::npos) << message(j);
  EXPECT_NE(message(nlohmann::ordered_json::array()).find("the file: expected an object, got []"), std::string::npos);
  EXPECT_EQ(message(good), "accepted");
}

TEST(ParallelRuns, EveryTaskOnceAndLowestFailingIndexReported) {
  std::vector<int> hits(50, 0);
  std::size_t last_done = 0;
  run_parallel(50, 3, [&](std::size_t i) { ++hits[i]; }, [&](std::size_t d) { last_done = d; });
  for (int h : hits) EXPECT_EQ(h, 1);
  EXPECT_EQ(last_done, 50u);
  try {
    run_parallel(8, 1, [](std::size_t i) {
      if (i >= 2) throw std::runtime_error("task " + std::to_string(i));
    });
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "task 2");
  }
}

}  // namespace
}  // namespace socsim::sweep
