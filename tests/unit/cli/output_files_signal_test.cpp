// OutputFiles::write_all holds terminating signals back while it stages and renames the outputs;
// one that arrived meanwhile ends the process right after, before the command says what it wrote,
// so write_all says it: the files are complete and replaced the earlier ones.
#include <signal.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "sim/cli/output_files.h"

namespace socsim::cli {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(OutputFilesSignals, ASignalHeldBackWhileWritingIsSaidWithTheFilesItDidNotStop) {
  const auto dir = std::filesystem::temp_directory_path() / ("socsim_out_signal_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "a.json") << "old";
  }
  // SIGHUP as from a terminal: a test binary started under nohup inherits it ignored, and a
  // signal that ends nothing is rightly not reported (ctest resets it for its children).
  struct sigaction dfl {}, inherited {};
  dfl.sa_handler = SIG_DFL;
  ASSERT_EQ(sigaction(SIGHUP, &dfl, &inherited), 0);
  // SIGHUP blocked by the test and raised: pending, as one that came during the write would be
  // (write_all restores this mask, so it stays pending here instead of ending the test).
  sigset_t hup, before;
  sigemptyset(&hup);
  sigaddset(&hup, SIGHUP);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &hup, &before), 0);
  ASSERT_EQ(raise(SIGHUP), 0);
  OutputFiles files;
  files.add(dir / "a.json", "new a");
  files.add(dir / "b.json", "new b");
  testing::internal::CaptureStderr();
  files.write_all();
  const std::string err = testing::internal::GetCapturedStderr();
  const timespec none{0, 0};
  EXPECT_EQ(sigtimedwait(&hup, nullptr, &none), SIGHUP);  // consumed: it was pending
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  EXPECT_EQ(read(dir / "a.json"), "new a");
  EXPECT_EQ(read(dir / "b.json"), "new b");
  EXPECT_NE(err.find("SIGHUP arrived while the outputs were written; each is complete: "), std::string::npos) << err;
  EXPECT_NE(err.find((dir / "b.json").string()), std::string::npos) << err;
  // Without a signal, nothing is said; nor with one that ends nothing (ignored, as under nohup).
  testing::internal::CaptureStderr();
  files.write_all();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &hup, &before), 0);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGHUP, &ignore, nullptr), 0);
  ASSERT_EQ(raise(SIGHUP), 0);
  testing::internal::CaptureStderr();
  files.write_all();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  pthread_sigmask(SIG_SETMASK, &before, nullptr);  // let through while ignored: discarded
  sigaction(SIGHUP, &inherited, nullptr);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace socsim::cli
