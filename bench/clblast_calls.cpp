// A real client's calls: CLBlast's SGEMM or STRSM (Debian's libclblast) on
// PoCL's CPU device, directly and through Parasol, first call and later
// calls, wall and CPU time of the process. SGEMM is one kernel per call (two
// programs); STRSM runs many per call: it inverts the diagonal blocks into a
// temporary buffer it creates and fills, then runs GEMMs over the blocks and
// copies the result back. A first call pays the program's build (PoCL's
// kernel cache warm for both: the warm-up process fills it) and the first
// data movements, so every measurement is a fresh process: the parent runs
// itself as a child per measurement, PoCL and Parasol alternating, and
// prints the medians and Parasol's ratios.
//
//   bench_clblast_calls                 BENCH_RUNS [5] processes per side,
//                                       BENCH_ROUTINE [sgemm] or strsm,
//                                       BENCH_SGEMM_N [512] (the matrices' n),
//                                       BENCH_CALLS [4]
//   bench_clblast_calls --child WHO     one process: WHO is "PoCL" or "Parasol"
#include <clblast_c.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"

namespace {

double cpu_seconds() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

// PoCL's first device, directly or as Parasol re-exports it.
cl_device_id pick(const std::string& who) {
  if (who == "Parasol") return bench::parasol_device_of("Portable");
  auto ds = bench::devices(bench::find_platform("Portable"));
  return ds.empty() ? nullptr : ds[0];
}

// One call of the routine on n x n matrices m[0..2]; whether CLBlast took it.
bool call_routine(const std::string& routine, size_t n, const std::array<cl_mem, 3>& m,
                  cl_command_queue* q, cl_event* done) {
  if (routine == "strsm")  // m[0] lower triangular, unit diagonal; m[1] overwritten
    return CLBlastStrsm(CLBlastLayoutRowMajor, CLBlastSideLeft, CLBlastTriangleLower,
                        CLBlastTransposeNo, CLBlastDiagonalUnit, n, n, 1.0f, m[0], 0, n, m[1], 0,
                        n, q, done) == CLBlastSuccess;
  return CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0f,
                      m[0], 0, n, m[1], 0, n, 0.5f, m[2], 0, n, q, done) == CLBlastSuccess;
}

// Prints "call i wall cpu" per call.
int child(const std::string& who) {
  const std::string routine = bench::env_string("BENCH_ROUTINE", "sgemm");
  const size_t n = static_cast<size_t>(bench::env_int("BENCH_SGEMM_N", 512));
  const int calls = bench::env_int("BENCH_CALLS", 4);
  cl_device_id dev = pick(who);
  if (!dev) {
    std::fprintf(stderr, "no PoCL device for %s\n", who.c_str());
    return 1;
  }
  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
  BENCH_CHECK(err);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, nullptr, &err);
  BENCH_CHECK(err);
  // Small values: STRSM's unit lower triangle keeps them bounded.
  std::vector<float> host(n * n);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 7) * (0.1f / n);
  std::array<cl_mem, 3> m{};
  for (cl_mem& b : m) {
    b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size() * sizeof(float),
                       host.data(), &err);
    BENCH_CHECK(err);
  }
  for (int c = 0; c < calls; ++c) {
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = cpu_seconds();
    cl_event done = nullptr;
    if (!call_routine(routine, n, m, &q, &done)) {
      std::fprintf(stderr, "CLBlast's %s failed\n", routine.c_str());
      return 1;
    }
    BENCH_CHECK(clWaitForEvents(1, &done));
    clReleaseEvent(done);
    std::printf("call %d %.6f %.6f\n", c, bench::seconds_since(t0), cpu_seconds() - cpu0);
  }
  for (cl_mem b : m) clReleaseMemObject(b);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}

struct Sample {
  double wall = 0, cpu = 0;
};

// One child process; its first call and the median of its later ones.
bool run_child(const char* self, const char* who, Sample& first, Sample& later) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execl(self, self, "--child", who, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[512];
  for (ssize_t got; (got = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(got));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return false;
  std::vector<Sample> calls;
  for (size_t at = 0; (at = out.find("call ", at)) != std::string::npos; ++at) {
    int index = 0;
    Sample s;
    if (std::sscanf(out.c_str() + at, "call %d %lf %lf", &index, &s.wall, &s.cpu) == 3)
      calls.push_back(s);
  }
  if (calls.size() < 2) return false;
  first = calls[0];
  std::vector<Sample> rest(calls.begin() + 1, calls.end());
  std::sort(rest.begin(), rest.end(), [](const Sample& a, const Sample& b) { return a.wall < b.wall; });
  later = rest[rest.size() / 2];
  return true;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--child") == 0) return child(argv[2]);
  const int runs = bench::env_int("BENCH_RUNS", 5);
  const char* sides[] = {"PoCL", "Parasol"};
  // Warm-up: PoCL's kernel cache holds CLBlast's kernels for both sides.
  Sample f, l;
  for (const char* who : sides)
    if (!run_child(argv[0], who, f, l)) {
      std::fprintf(stderr, "the %s child failed\n", who);
      return 1;
    }
  std::array<std::array<std::vector<double>, 4>, 2> got;  // side: first wall, cpu, later wall, cpu
  for (int r = 0; r < runs; ++r)
    for (int k = 0; k < 2; ++k) {
      const int side = (r % 2) ? 1 - k : k;  // alternate which side goes first
      if (!run_child(argv[0], sides[side], f, l)) return 1;
      got[side][0].push_back(f.wall);
      got[side][1].push_back(f.cpu);
      got[side][2].push_back(l.wall);
      got[side][3].push_back(l.cpu);
    }
  std::printf("CLBlast %s, n = %d, on PoCL's CPU device, median of %d processes each\n\n",
              bench::env_string("BENCH_ROUTINE", "sgemm").c_str(), bench::env_int("BENCH_SGEMM_N", 512),
              runs);
  std::printf("| call | PoCL wall | Parasol wall | ratio | PoCL CPU | Parasol CPU | ratio |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  const char* rows[] = {"first", "later (median)"};
  for (int row = 0; row < 2; ++row) {
    const double pw = median(got[0][2 * row]), xw = median(got[1][2 * row]);
    const double pc = median(got[0][2 * row + 1]), xc = median(got[1][2 * row + 1]);
    std::printf("| %s | %.3f s | %.3f s | %.2fx | %.3f s | %.3f s | %.2fx |\n", rows[row], pw, xw,
                xw / pw, pc, xc, xc / pc);
  }
  return 0;
}
