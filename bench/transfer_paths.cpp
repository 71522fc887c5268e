// Transfers of a buffer a device already holds: the vendor used directly
// and Parasol's device queue on the same device, in one process,
// interleaved rounds, best of each, ratios against the vendor. Blocking
// reads and writes of several sizes (Parasol blocks in the vendor's own call
// up to 4 MiB, and otherwise waits on the transfer's own event), and the
// commands that once went through StarPU's main-RAM copy of the whole buffer
// (a fill, a rect write, a copy within the buffer, a map and unmap), each
// followed by a kernel over the buffer so that the data's place counts.
//
//   bench_transfer_paths [vendor-platform-prefix]   (default: the vendor of
//   Parasol's first device)
// Environment: BENCH_MB [256] the buffer's size, BENCH_REPS [5] commands per
// round, BENCH_ROUNDS [5].
#include <vector>

#include "bench_util.h"

using namespace bench;

namespace {

const char* kSource = "__kernel void add(__global float* x) { x[get_global_id(0)] += 1.0f; }\n";

struct Setup {
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel k;
  cl_mem buf;
  size_t floats;

  Setup(cl_device_id dev, size_t bytes) : floats(bytes / sizeof(float)) {
    cl_int err;
    ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    BENCH_CHECK(err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    BENCH_CHECK(err);
    buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    BENCH_CHECK(err);
    prog = build(ctx, kSource);
    k = clCreateKernel(prog, "add", &err);
    BENCH_CHECK(err);
    BENCH_CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
    kernel();  // the buffer on the device (Parasol: leased there)
    BENCH_CHECK(clFinish(q));
  }
  ~Setup() {
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
  }
  void kernel() {
    BENCH_CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &floats, nullptr, 0, nullptr, nullptr));
  }
};

struct Case {
  const char* name;
  // One command (and its kernel, if any) on s; host: scratch host memory.
  void (*run)(Setup& s, std::vector<float>& host);
};

void blocking_read(Setup& s, std::vector<float>& host, size_t bytes) {
  BENCH_CHECK(clEnqueueReadBuffer(s.q, s.buf, CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr));
}
void blocking_write(Setup& s, std::vector<float>& host, size_t bytes) {
  BENCH_CHECK(clEnqueueWriteBuffer(s.q, s.buf, CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr));
}

const Case kCases[] = {
    {"blocking read, 64 B", [](Setup& s, std::vector<float>& h) { blocking_read(s, h, 64); }},
    {"blocking read, 1 MB", [](Setup& s, std::vector<float>& h) { blocking_read(s, h, 1 << 20); }},
    {"blocking read, 16 MB", [](Setup& s, std::vector<float>& h) { blocking_read(s, h, 16 << 20); }},
    {"blocking write, 1 MB", [](Setup& s, std::vector<float>& h) { blocking_write(s, h, 1 << 20); }},
    {"fill the whole buffer, then a kernel",
     [](Setup& s, std::vector<float>&) {
       const float zero = 0.0f;
       BENCH_CHECK(clEnqueueFillBuffer(s.q, s.buf, &zero, sizeof zero, 0, s.floats * sizeof(float),
                                       0, nullptr, nullptr));
       s.kernel();
     }},
    {"fill 1 MB of it, then a kernel",
     [](Setup& s, std::vector<float>&) {
       const float zero = 0.0f;
       BENCH_CHECK(clEnqueueFillBuffer(s.q, s.buf, &zero, sizeof zero, 0, 1 << 20, 0, nullptr,
                                       nullptr));
       s.kernel();
     }},
    {"write a 64 x 64 float box (rect), then a kernel",
     [](Setup& s, std::vector<float>& h) {
       const size_t origin[3] = {0, 0, 0}, region[3] = {64 * sizeof(float), 64, 1};
       BENCH_CHECK(clEnqueueWriteBufferRect(s.q, s.buf, CL_FALSE, origin, origin, region,
                                            4096 * sizeof(float), 0, 64 * sizeof(float), 0,
                                            h.data(), 0, nullptr, nullptr));
       s.kernel();
     }},
    {"copy 1 MB within the buffer, then a kernel",
     [](Setup& s, std::vector<float>&) {
       BENCH_CHECK(clEnqueueCopyBuffer(s.q, s.buf, s.buf, 0, s.floats * sizeof(float) / 2, 1 << 20,
                                       0, nullptr, nullptr));
       s.kernel();
     }},
    {"map 1 MB of it (blocking, read and write), unmap, then a kernel",
     [](Setup& s, std::vector<float>&) {
       cl_int err;
       auto* p = static_cast<float*>(clEnqueueMapBuffer(s.q, s.buf, CL_TRUE,
                                                        CL_MAP_READ | CL_MAP_WRITE, 4096, 1 << 20,
                                                        0, nullptr, nullptr, &err));
       BENCH_CHECK(err);
       p[0] += 1.0f;
       BENCH_CHECK(clEnqueueUnmapMemObject(s.q, s.buf, p, 0, nullptr, nullptr));
       s.kernel();
     }},
};

// Best of `rounds` of `reps` commands and a clFinish, per command (ms).
double measure(Setup& s, const Case& c, std::vector<float>& host, int reps, int rounds) {
  return best_of(rounds, [&] {
           for (int i = 0; i < reps; ++i) c.run(s, host);
           BENCH_CHECK(clFinish(s.q));
         }) * 1e3 / reps;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t mb = static_cast<size_t>(env_int("BENCH_MB", 256));
  const int reps = env_int("BENCH_REPS", 5), rounds = env_int("BENCH_ROUNDS", 5);
  cl_device_id pdev = parasol_device_of(argc > 1 ? argv[1] : nullptr);
  if (!pdev) return 1;
  Setup vendor(vendor_device_of(pdev), mb << 20), parasol(pdev, mb << 20);
  std::vector<float> host(16 << 20 >> 2, 1.0f);

  std::printf("Transfers of a %zu MB buffer held by %s (%s), ms per command, best of %d rounds "
              "of %d\n\n",
              mb, device_name(pdev).c_str(), vendor_of(pdev).c_str(), rounds, reps);
  std::printf("| command | vendor direct | Parasol device queue | ratio |\n|---|---|---|---|\n");
  for (const Case& c : kCases) {
    double v = 1e30, p = 1e30;
    for (int round = 0; round < 2; ++round) {  // interleaved: noise hits both alike
      v = std::min(v, measure(vendor, c, host, reps, rounds));
      p = std::min(p, measure(parasol, c, host, reps, rounds));
    }
    std::printf("| %s | %.4f | %.4f | %.2fx |\n", c.name, v, p, p / v);
  }
  return 0;
}
