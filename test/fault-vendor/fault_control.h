// The fault vendor's control file, from a test's side: PARASOL_FAULT_CONTROL
// is set once, before main() (so before any thread reads the environment),
// to a file of this process; set() replaces the faults, clear() removes them.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace fault_test {

class FaultControl {
 public:
  FaultControl()
      : path_((std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
              std::string("/parasol-fault-") + std::to_string(getpid()) + ".ctl") {
    std::remove(path_.c_str());
    setenv("PARASOL_FAULT_CONTROL", path_.c_str(), 1);
  }
  ~FaultControl() { std::remove(path_.c_str()); }

  // One fault a line, e.g. "exec_fail -4\nkernel_filter vadd".
  void set(const std::string& lines) const {
    std::string tmp = path_ + ".new";
    std::ofstream(tmp) << lines << "\n";
    std::rename(tmp.c_str(), path_.c_str());  // readers see all of it or none
  }
  void clear() const { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline FaultControl faults;

// Clears the faults when a test section ends, however it ends.
struct FaultScope {
  explicit FaultScope(const std::string& lines) { faults.set(lines); }
  ~FaultScope() { faults.clear(); }
};

}  // namespace fault_test
