// Every thread of the process with its CPU time and context switches, from
// /proc/self/task: who runs and who wakes while a stream goes on, on a host
// with fewer cores than runnable threads (bench_launch_stream's
// BENCH_THREAD_STATS). Linux only; prints nothing elsewhere.
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <string>

namespace bench {

inline void print_thread_stats(std::FILE* out) {
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return;
  const double tick = 1.0 / (double)sysconf(_SC_CLK_TCK);
  struct Row {
    double cpu_s = 0;
    long voluntary = 0, involuntary = 0;
  };
  std::map<long, std::pair<std::string, Row>> by_tid;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    const std::string task = std::string("/proc/self/task/") + e->d_name;
    std::string name;
    std::getline(std::ifstream(task + "/comm"), name);
    auto& [row_name, r] = by_tid[std::stol(e->d_name)];
    row_name = name;
    // stat: "pid (comm) state ..." with utime and stime the 14th and 15th
    // fields; comm may hold spaces, so count from the closing parenthesis.
    std::string stat;
    std::getline(std::ifstream(task + "/stat"), stat);
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string skip;
    for (int i = 3; i < 14; ++i) fields >> skip;
    unsigned long utime = 0, stime = 0;
    fields >> utime >> stime;
    r.cpu_s += (double)(utime + stime) * tick;
    std::ifstream status(task + "/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) r.voluntary += std::stol(line.substr(24));
      if (line.rfind("nonvoluntary_ctxt_switches:", 0) == 0) r.involuntary += std::stol(line.substr(27));
    }
  }
  closedir(dir);
  std::fprintf(out, "| thread | id | CPU s | voluntary switches | involuntary switches |\n|---|---|---|---|---|\n");
  for (auto& [tid, row] : by_tid)
    std::fprintf(out, "| %s | %ld | %.2f | %ld | %ld |\n", row.first.c_str(), tid, row.second.cpu_s,
                 row.second.voluntary, row.second.involuntary);
}

}  // namespace bench
