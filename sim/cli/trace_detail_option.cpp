#include "sim/cli/trace_detail_option.h"

#include "sim/config/config_error.h"

namespace socsim::cli {

report::TraceDetail trace_detail_option(const std::string& text) {
  if (text == "auto") return report::TraceDetail::kAuto;
  if (text == "full") return report::TraceDetail::kFull;
  if (text == "summary") return report::TraceDetail::kSummary;
  throw config::ConfigError({"command line", 0, 0}, "--trace-detail", "expected auto, full or summary, got '" + text + "'");
}

}  // namespace socsim::cli
