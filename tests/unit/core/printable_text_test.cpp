// Names from the inputs shown on a terminal or in the HTML report: control characters and bytes of
// no UTF-8 sequence made visible (terminal) or replaced (HTML), well-formed UTF-8 kept.
#include <gtest/gtest.h>

#include <string>

#include "sim/core/printable_text.h"
#include "sim/report/html_util.h"

namespace socsim {
namespace {

TEST(PrintableText, Utf8SequencesAreMeasuredAndMalformedOnesRefused) {
  EXPECT_EQ(utf8_sequence_length("a", 0), 1u);
  EXPECT_EQ(utf8_sequence_length("\xc3\xa9", 0), 2u);          // é
  EXPECT_EQ(utf8_sequence_length("\xe2\x82\xac", 0), 3u);      // €
  EXPECT_EQ(utf8_sequence_length("\xf0\x9f\x98\x80", 0), 4u);  // an emoji
  EXPECT_EQ(utf8_sequence_length("\xff", 0), 0u);
  EXPECT_EQ(utf8_sequence_length("\x80", 0), 0u);              // a stray continuation byte
  EXPECT_EQ(utf8_sequence_length("\xc0\xaf", 0), 0u);          // overlong
  EXPECT_EQ(utf8_sequence_length("\xe0\x80\xaf", 0), 0u);      // overlong
  EXPECT_EQ(utf8_sequence_length("\xed\xa0\x80", 0), 0u);      // a surrogate
  EXPECT_EQ(utf8_sequence_length("\xf4\x90\x80\x80", 0), 0u);  // past U+10FFFF
  EXPECT_EQ(utf8_sequence_length("\xe2\x82", 0), 0u);          // truncated
}

TEST(PrintableText, ControlAndInvalidBytesShowAsEscapes) {
  EXPECT_EQ(printable("wl\x1b]0;PWNED\x07\x1b[2J\nx\rCR"), "wl\\x1b]0;PWNED\\x07\\x1b[2J\\x0ax\\x0dCR");
  EXPECT_EQ(printable("caf\xc3\xa9 \xff\xfe"), "caf\xc3\xa9 \\xff\\xfe");
  EXPECT_EQ(printable("qwen2-0.5b"), "qwen2-0.5b");
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
}

TEST(PrintableText, HtmlEscapeReplacesWhatHtmlCannotHold) {
  EXPECT_EQ(report::html::escape("<script>&\"'"), "&lt;script&gt;&amp;&quot;&#39;");
  EXPECT_EQ(report::html::escape("a\x1b[2J\x07z"), "a&#xFFFD;[2J&#xFFFD;z");
  EXPECT_EQ(report::html::escape("x\xff\xfey"), "x&#xFFFD;&#xFFFD;y");
  EXPECT_EQ(report::html::escape("caf\xc3\xa9\tline\n"), "caf\xc3\xa9\tline\n");
}

}  // namespace
}  // namespace socsim
