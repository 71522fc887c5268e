// Host-side transfer commands (read, write, copy, fill and the three *Rect
// forms) and the three host-pointer creation flags, each compared with the
// same operation done on a CPU copy. The data sits on a vendor device when
// the command starts, so every transfer also proves StarPU fetched it back.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "core/core_fixture.h"

using namespace parasol_test;

namespace {

// Makes the buffer's valid copy live on dev's memory: a kernel there adds 0.
void touch_on(MixedPair& m, cl_command_queue q, cl_mem buf, size_t n) {
  Program prog(m.ctx, kIntKernels);
  Kernel k(prog, "add_const_int");
  set_args(k, buf, 0);
  CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(q));
}

// CPU reference of a *Rect copy between two byte arrays.
void rect_ref(std::vector<unsigned char>& dst, const size_t dorg[3], size_t drow, size_t dslice,
              const std::vector<unsigned char>& src, const size_t sorg[3], size_t srow,
              size_t sslice, const size_t region[3]) {
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; ++y)
      for (size_t x = 0; x < region[0]; ++x)
        dst[(dorg[2] + z) * dslice + (dorg[1] + y) * drow + dorg[0] + x] =
            src[(sorg[2] + z) * sslice + (sorg[1] + y) * srow + sorg[0] + x];
}

std::vector<unsigned char> bytes_pattern(size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>((i * 7 + seed * 13) & 0xFF);
  return v;
}

}  // namespace

TEST_CASE("read, write, copy and fill of whole and partial buffers match a CPU copy") {
  MixedPair m;
  const size_t n = 1024;
  std::vector<int> ref = iota_vector(n, 100);
  Mem a(m.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(int), ref.data());
  Mem b(m.ctx, CL_MEM_READ_WRITE, n * sizeof(int));
  touch_on(m, m.qg, a, n);  // a's valid copy now lives on Oclgrind

  // Partial write on the PoCL queue.
  std::vector<int> patch = iota_vector(100, -500);
  CL_REQUIRE(clEnqueueWriteBuffer(m.qp, a, CL_TRUE, 200 * sizeof(int), 100 * sizeof(int),
                                  patch.data(), 0, nullptr, nullptr));
  std::copy(patch.begin(), patch.end(), ref.begin() + 200);
  CHECK(read_ints(m.qg, a, n) == ref);

  // Partial read from an offset.
  auto part = read_ints(m.qp, a, 50, 190);
  CHECK(std::equal(part.begin(), part.end(), ref.begin() + 190));

  // Copy a window of a into b at another offset (b whole-filled first).
  int pattern = 0x5a5a5a5a;
  CL_REQUIRE(clEnqueueFillBuffer(m.qp, b, &pattern, sizeof pattern, 0, n * sizeof(int), 0,
                                 nullptr, nullptr));
  CL_REQUIRE(clEnqueueCopyBuffer(m.qp, a, b, 150 * sizeof(int), 600 * sizeof(int),
                                 300 * sizeof(int), 0, nullptr, nullptr));
  std::vector<int> bref(n, pattern);
  std::copy(ref.begin() + 150, ref.begin() + 450, bref.begin() + 600);
  CHECK(read_ints(m.qp, b, n) == bref);

  // Fill with patterns of 1, 2, 8 and 16 bytes over partial ranges.
  std::vector<unsigned char> raw(n * sizeof(int));
  std::memcpy(raw.data(), bref.data(), raw.size());
  struct Fill { std::vector<unsigned char> pat; size_t offset, size; };
  std::vector<Fill> fills{{{0xab}, 3, 29},
                          {{0x01, 0x02}, 64, 128},
                          {{1, 2, 3, 4, 5, 6, 7, 8}, 512, 256},
                          {bytes_pattern(16, 3), 1024, 2048}};
  for (const auto& f : fills) {
    CL_REQUIRE(clEnqueueFillBuffer(m.qg, b, f.pat.data(), f.pat.size(), f.offset, f.size, 0,
                                   nullptr, nullptr));
    for (size_t i = 0; i < f.size; ++i) raw[f.offset + i] = f.pat[i % f.pat.size()];
  }
  CL_REQUIRE(clFinish(m.qg));
  std::vector<unsigned char> got(raw.size());
  CL_REQUIRE(clEnqueueReadBuffer(m.qp, b, CL_TRUE, 0, got.size(), got.data(), 0, nullptr,
                                 nullptr));
  CHECK(got == raw);
}

TEST_CASE("the three Rect transfers move exactly the described boxes") {
  MixedPair m;
  // Buffer seen as 3D: row pitch 40 bytes, slice pitch 40*12 bytes, 5 slices.
  const size_t brow = 40, bslice = 40 * 12, bsize = bslice * 5;
  std::vector<unsigned char> ref = bytes_pattern(bsize, 1);
  Mem buf(m.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bsize, ref.data());
  touch_on(m, m.qg, buf, bsize / sizeof(int));

  SECTION("ReadBufferRect") {
    const size_t borg[3] = {3, 2, 1}, horg[3] = {1, 1, 0}, region[3] = {17, 5, 3};
    const size_t hrow = 24, hslice = 24 * 7;
    std::vector<unsigned char> host(hslice * 3, 0xee), expect(host);
    CL_REQUIRE(clEnqueueReadBufferRect(m.qp, buf, CL_TRUE, borg, horg, region, brow, bslice,
                                       hrow, hslice, host.data(), 0, nullptr, nullptr));
    rect_ref(expect, horg, hrow, hslice, ref, borg, brow, bslice, region);
    CHECK(host == expect);
  }
  SECTION("WriteBufferRect") {
    const size_t borg[3] = {5, 0, 2}, horg[3] = {2, 3, 1}, region[3] = {30, 9, 2};
    const size_t hrow = 33, hslice = 33 * 13;
    std::vector<unsigned char> host = bytes_pattern(hslice * 3, 9);
    CL_REQUIRE(clEnqueueWriteBufferRect(m.qg, buf, CL_TRUE, borg, horg, region, brow, bslice,
                                        hrow, hslice, host.data(), 0, nullptr, nullptr));
    rect_ref(ref, borg, brow, bslice, host, horg, hrow, hslice, region);
    std::vector<unsigned char> got(bsize);
    CL_REQUIRE(clEnqueueReadBuffer(m.qp, buf, CL_TRUE, 0, bsize, got.data(), 0, nullptr, nullptr));
    CHECK(got == ref);
  }
  SECTION("CopyBufferRect between buffers and inside one buffer") {
    const size_t drow = 64, dslice = 64 * 4, dsize = dslice * 4;
    std::vector<unsigned char> dref = bytes_pattern(dsize, 5);
    Mem dst(m.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, dsize, dref.data());
    const size_t sorg[3] = {1, 3, 0}, dorg[3] = {10, 1, 2}, region[3] = {20, 3, 2};
    CL_REQUIRE(clEnqueueCopyBufferRect(m.qp, buf, dst, sorg, dorg, region, brow, bslice, drow,
                                       dslice, 0, nullptr, nullptr));
    rect_ref(dref, dorg, drow, dslice, ref, sorg, brow, bslice, region);
    // Inside one buffer: two disjoint boxes (slice 0 -> slice 3).
    const size_t s2[3] = {0, 0, 0}, d2[3] = {4, 4, 3}, r2[3] = {16, 6, 1};
    CL_REQUIRE(clEnqueueCopyBufferRect(m.qp, buf, buf, s2, d2, r2, brow, bslice, brow, bslice, 0,
                                       nullptr, nullptr));
    std::vector<unsigned char> before = ref;
    rect_ref(ref, d2, brow, bslice, before, s2, brow, bslice, r2);
    CL_REQUIRE(clFinish(m.qp));
    std::vector<unsigned char> got(dsize), got2(bsize);
    CL_REQUIRE(clEnqueueReadBuffer(m.qg, dst, CL_TRUE, 0, dsize, got.data(), 0, nullptr, nullptr));
    CL_REQUIRE(clEnqueueReadBuffer(m.qg, buf, CL_TRUE, 0, bsize, got2.data(), 0, nullptr,
                                   nullptr));
    CHECK(got == dref);
    CHECK(got2 == ref);
  }
}

TEST_CASE("USE_HOST_PTR, COPY_HOST_PTR and ALLOC_HOST_PTR buffers carry data through kernels on both vendors") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel add(prog, "add_const_int");
  const size_t n = 512;

  SECTION("USE_HOST_PTR: the map pointer is the user's memory and holds the kernels' result") {
    std::vector<int> host = iota_vector(n, 7);
    Mem buf(m.ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * sizeof(int), host.data());
    void* hp = nullptr;
    CL_REQUIRE(clGetMemObjectInfo(buf, CL_MEM_HOST_PTR, sizeof hp, &hp, nullptr));
    CHECK(hp == host.data());
    Event e1, e2;
    set_args(add, buf.m, 3);
    CL_REQUIRE(clEnqueueNDRangeKernel(m.qp, add, 1, nullptr, &n, nullptr, 0, nullptr, &e1));
    set_args(add, buf.m, 10);
    CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, add, 1, nullptr, &n, nullptr, 1, &e1, &e2));
    cl_int err = CL_SUCCESS;
    auto* p = static_cast<int*>(clEnqueueMapBuffer(m.qp, buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                                   64 * sizeof(int), 128 * sizeof(int), 1, &e2,
                                                   nullptr, &err));
    CL_REQUIRE(err);
    CHECK(p == host.data() + 64);
    for (size_t i = 0; i < 128; ++i) REQUIRE(p[i] == int(i + 64) + 7 + 13);
    p[5] = -1;  // written in place, seen after unmap
    CL_REQUIRE(clEnqueueUnmapMemObject(m.qp, buf, p, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(m.qp));
    auto got = read_ints(m.qg, buf, n);
    for (size_t i = 0; i < n; ++i) REQUIRE(got[i] == (i == 69 ? -1 : int(i) + 20));
    CL_REQUIRE(clFinish(m.qg));
  }
  SECTION("COPY_HOST_PTR copies at creation: later changes to the host array do not leak in") {
    std::vector<int> host = iota_vector(n, 1);
    Mem buf(m.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(int), host.data());
    std::fill(host.begin(), host.end(), 999);
    set_args(add, buf.m, 2);
    CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(m.qg));
    auto got = read_ints(m.qp, buf, n);
    for (size_t i = 0; i < n; ++i) REQUIRE(got[i] == int(i) + 3);
    void* hp = reinterpret_cast<void*>(1);
    CL_REQUIRE(clGetMemObjectInfo(buf, CL_MEM_HOST_PTR, sizeof hp, &hp, nullptr));
    CHECK(hp == nullptr);
  }
  SECTION("ALLOC_HOST_PTR | COPY_HOST_PTR and plain ALLOC_HOST_PTR buffers") {
    std::vector<int> host = iota_vector(n, 40);
    Mem both(m.ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR, n * sizeof(int), host.data());
    Mem alloc(m.ctx, CL_MEM_ALLOC_HOST_PTR, n * sizeof(int));
    Program p2(m.ctx, kIntKernels);
    Kernel copy(p2, "copy_int");
    set_args(copy, both.m, alloc.m);
    CL_REQUIRE(clEnqueueNDRangeKernel(m.qp, copy, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(m.qp));
    set_args(add, alloc.m, -40);
    CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(m.qg));
    CHECK(read_ints(m.qp, alloc, n) == iota_vector(n, 0));
    CHECK(read_ints(m.qp, both, n) == host);
  }
}

// A map for reading is served in place, from the buffer's main-RAM bytes:
// a kernel writing another region of the buffer meanwhile, on another
// device, and the buffer coming back to main RAM for a read, leave the
// mapped bytes as they were; the kernel's result is there after the unmap.
TEST_CASE("a region mapped for reading keeps its bytes while another region is written elsewhere") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel add(prog, "add_const_int");
  const size_t n = 4096, half = n / 2;
  const std::vector<int> ref = iota_vector(n, 3);
  Mem buf(m.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(int),
          const_cast<int*>(ref.data()));
  touch_on(m, m.qp, buf, n);  // the valid copy on PoCL
  cl_int err = CL_SUCCESS;
  const cl_buffer_region second{half * sizeof(int), half * sizeof(int)};
  Mem upper{clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &second, &err)};
  CL_REQUIRE(err);
  for (cl_bool blocking : {CL_TRUE, CL_FALSE}) {
    INFO((blocking ? "blocking map" : "non-blocking map"));
    Event mapped;
    auto* p = static_cast<const int*>(clEnqueueMapBuffer(
        m.qp, buf, blocking, CL_MAP_READ, 0, half * sizeof(int), 0, nullptr, &mapped, &err));
    CL_REQUIRE(err);
    CL_REQUIRE(clWaitForEvents(1, &mapped.e));
    CHECK(std::equal(p, p + half, ref.begin()));
    set_args(add, upper.m, 5);
    CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, add, 1, nullptr, &half, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(m.qg));
    auto upper_now = read_ints(m.qp, upper, half);  // the buffer through main RAM
    for (size_t i = 0; i < half; ++i) REQUIRE(upper_now[i] == ref[half + i] + (blocking ? 5 : 10));
    CHECK(std::equal(p, p + half, ref.begin()));
    CL_REQUIRE(clEnqueueUnmapMemObject(m.qp, buf, const_cast<int*>(p), 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(m.qp));
  }
  auto got = read_ints(m.qg, buf, n);
  for (size_t i = 0; i < n; ++i) REQUIRE(got[i] == ref[i] + (i < half ? 0 : 10));
}

// A buffer created with contents in a context of one device goes to that
// device by itself, before any command (StarPU's bus counters show the
// bytes arrive); commands and host writes that follow see the right data.
TEST_CASE("a buffer created with contents in a one-device context is placed on that device") {
  cl_device_id dev = pocl_devices().at(0);
  Context ctx({dev});
  Queue q(ctx, dev);
  const size_t n = 1 << 18;  // 1 MiB
  for (cl_mem_flags kind : {CL_MEM_COPY_HOST_PTR, CL_MEM_USE_HOST_PTR}) {
    INFO((kind == CL_MEM_COPY_HOST_PTR ? "COPY_HOST_PTR" : "USE_HOST_PTR"));
    std::vector<int> host = iota_vector(n, 5);
    const cl_ulong in_before = device_stats(dev).bytes_in;
    Mem buf(ctx, CL_MEM_READ_WRITE | kind, n * sizeof(int), host.data());
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (device_stats(dev).bytes_in - in_before < n * sizeof(int) &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CHECK(device_stats(dev).bytes_in - in_before >= n * sizeof(int));
    // A write right after creation wins over the placed contents.
    const std::vector<int> head = iota_vector(64, 1000);
    CL_REQUIRE(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 64 * sizeof(int), head.data(), 0,
                                    nullptr, nullptr));
    Program prog(ctx, kIntKernels);
    Kernel add(prog, "add_const_int");
    set_args(add, buf.m, 1);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    auto got = read_ints(q, buf, n);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) wrong += got[i] != (i < 64 ? int(i) + 1001 : int(i) + 6);
    CHECK(wrong == 0);
  }
}

// The process may end while placements are still on their way: its exit
// waits for them, since StarPU cannot shut down with a transfer queued (it
// aborts). The case passes in the test; the exit is what ctest checks.
TEST_CASE("a process that ends right after creating buffers with contents exits cleanly") {
  cl_device_id dev = pocl_devices().at(0);
  Context ctx({dev});
  const size_t n = 1 << 14;  // 64 KiB each
  std::vector<int> host = iota_vector(n, 3);
  std::vector<std::unique_ptr<Mem>> bufs;
  for (int i = 0; i < 256; ++i)
    bufs.push_back(std::make_unique<Mem>(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                         n * sizeof(int), host.data()));
  CHECK(bufs.size() == 256);
}

// A buffer in the application's memory (USE_HOST_PTR) holds what fills,
// writes and copies put in it as soon as they complete, unmapped: the CTS
// reads it so (mem_host_flags), as CPU vendors serve it.
TEST_CASE("fills, writes and copies into a USE_HOST_PTR buffer land in the host memory it names") {
  cl_device_id dev = pocl_devices().at(0);
  Context ctx({dev});
  Queue q(ctx, dev);
  const size_t n = 4096;
  std::vector<int> host(n, 0);
  Mem buf(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * sizeof(int), host.data());
  const int pattern = 7;
  CL_REQUIRE(clEnqueueFillBuffer(q, buf, &pattern, sizeof pattern, 0, n * sizeof(int), 0, nullptr,
                                 nullptr));
  CL_REQUIRE(clFinish(q));
  CHECK(std::count(host.begin(), host.end(), pattern) == static_cast<long>(n));
  const std::vector<int> written = iota_vector(n / 4, 100);
  CL_REQUIRE(clEnqueueWriteBuffer(q, buf, CL_TRUE, n / 4 * sizeof(int), n / 4 * sizeof(int),
                                  written.data(), 0, nullptr, nullptr));
  const std::vector<int> copied = iota_vector(n / 4, 5000);
  Mem other(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n / 4 * sizeof(int),
            const_cast<int*>(copied.data()));
  CL_REQUIRE(clEnqueueCopyBuffer(q, other, buf, 0, n / 2 * sizeof(int), n / 4 * sizeof(int), 0,
                                 nullptr, nullptr));
  CL_REQUIRE(clFinish(q));
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) {
    const int want = i < n / 4 ? pattern
                     : i < n / 2 ? written[i - n / 4]
                     : i < 3 * n / 4 ? copied[i - n / 2]
                                     : pattern;
    wrong += host[i] != want;
  }
  CHECK(wrong == 0);
}
