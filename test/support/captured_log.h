// Parasol's log (stderr) kept in a file for the whole test process, so that a
// test can read what Parasol said about its commands: where they went, what
// failed and how often. Installed before Parasol's first call (a static of the
// test binary), at debug level.
#pragma once

#include <cstddef>
#include <string>

namespace parasol_test {

class CapturedLog {
 public:
  CapturedLog();
  ~CapturedLog();
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;
  // What was logged since the previous call.
  std::string take();

 private:
  std::string path_;
  std::size_t seen_ = 0;
};

// The process's one capture (made at first use).
CapturedLog& captured_log();

// How many times text occurs in log.
int count(const std::string& log, const std::string& text);

}  // namespace parasol_test
