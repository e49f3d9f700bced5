#pragma once
// Boost.Program_options with unsigned options that refuse negative numbers. Boost converts an
// option's text with lexical_cast, which wraps "-1" into 4294967295 for an unsigned target (so
// `bench --repeat -1` ran four billion times and `microbench --bytes -1` asked for 16 EiB). The
// overloads below are found by argument-dependent lookup (boost::any lives in namespace boost)
// and win over Boost's generic validate (exact `int` for its literal 0 against `long`); they
// reject a leading '-' with Boost's own invalid_option_value error, which the commands report
// as bad input (exit 2) naming the option. Every CLI file includes this instead of Boost's
// header.
#include <boost/program_options.hpp>

#include <charconv>
#include <string>
#include <vector>

namespace socsim::cli::detail {

template <typename T>
void validate_unsigned(boost::any& v, const std::vector<std::string>& values) {
  namespace po = boost::program_options;
  po::validators::check_first_occurrence(v);
  const std::string& s = po::validators::get_single_string(values);
  // Digits only (from_chars takes no sign and no whitespace), the whole text, within T.
  T x{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x, 10);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) throw po::invalid_option_value(s);
  v = boost::any(x);
}

}  // namespace socsim::cli::detail

namespace boost {

inline void validate(boost::any& v, const std::vector<std::string>& values, unsigned int*, int) {
  socsim::cli::detail::validate_unsigned<unsigned int>(v, values);
}
inline void validate(boost::any& v, const std::vector<std::string>& values, unsigned long*, int) {
  socsim::cli::detail::validate_unsigned<unsigned long>(v, values);
}
inline void validate(boost::any& v, const std::vector<std::string>& values, unsigned long long*, int) {
  socsim::cli::detail::validate_unsigned<unsigned long long>(v, values);
}

}  // namespace boost

namespace socsim::cli {

// Options are taken by their whole names only: boost's default guesses an unambiguous prefix, so
// `--trace x.json` was read as --trace-detail and `--rep DIR` as --report-dir, and any option
// added later with the same prefix would silently change what an existing script means.
inline constexpr int kOptionStyle = boost::program_options::command_line_style::default_style &
                                    ~boost::program_options::command_line_style::allow_guessing;

// Parses a command's options into `vm`. A word that is no option and no option's value (`socsim
// run ... extra`, or `--set x =y`, whose `=y` stands alone) is refused with boost's error, which
// the commands report as bad input naming it; boost keeps such words aside and says nothing.
inline void parse_options(const std::vector<std::string>& args, const boost::program_options::options_description& opts,
                          boost::program_options::variables_map& vm) {
  namespace po = boost::program_options;
  const po::parsed_options parsed = po::command_line_parser(args).options(opts).style(kOptionStyle).run();
  for (const auto& o : parsed.options) {
    if (o.position_key >= 0) {
      throw po::error("unexpected argument '" + (o.value.empty() ? std::string() : o.value.front()) +
                      "' (every input is given by an option such as --prompt 8; a value with spaces needs quotes)");
    }
  }
  po::store(parsed, vm);
}

}  // namespace socsim::cli
