#pragma once
// Small helpers shared by the HTML report's sections: escaping and a stable palette.
#include <string>

namespace socsim::report::html {

std::string escape(const std::string& s);

// A fixed palette indexed by position so colours are stable between runs.
const char* colour(std::size_t i);

// "0.5 ms", "12 ms", "1.25 s": axis labels.
std::string time_label(double ms);

}  // namespace socsim::report::html
