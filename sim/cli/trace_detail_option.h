#pragma once
// --trace-detail auto|full|summary, as `socsim run` and `socsim sweep` take it (sim/report/trace.h
// says what each keeps).
#include <string>

#include "sim/report/trace.h"

namespace socsim::cli {

// Throws config::ConfigError naming --trace-detail for any other text.
report::TraceDetail trace_detail_option(const std::string& text);

}  // namespace socsim::cli
