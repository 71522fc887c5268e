#include "support/captured_log.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace parasol_test {

CapturedLog::CapturedLog() {
  setenv("PARASOL_LOG", "debug", 1);  // before Parasol's first call
  char name[] = "/tmp/parasol-test-log-XXXXXX";
  int fd = mkstemp(name);
  if (fd < 0) return;
  path_ = name;
  std::fflush(stderr);
  dup2(fd, 2);
  close(fd);
}

CapturedLog::~CapturedLog() {
  if (!path_.empty()) unlink(path_.c_str());
}

std::string CapturedLog::take() {
  std::fflush(stderr);
  std::ifstream in(path_);
  std::stringstream all;
  all << in.rdbuf();
  std::string s = all.str();
  std::string fresh = s.size() > seen_ ? s.substr(seen_) : std::string();
  seen_ = s.size();
  return fresh;
}

CapturedLog& captured_log() {
  static CapturedLog log;
  return log;
}

int count(const std::string& log, const std::string& text) {
  int n = 0;
  for (std::size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++n;
  return n;
}

}  // namespace parasol_test
