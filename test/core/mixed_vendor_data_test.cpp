// Data that moves between vendors inside one context (PoCL + Oclgrind):
// every command may find the valid copy on the other vendor's device, and
// whatever one vendor wrote must be what the other reads.
#include "core/core_fixture.h"

using namespace parasol_test;

TEST_CASE("a copy on the PoCL queue then a kernel on the Oclgrind queue sees the copied data") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel add(prog, "add_const_int");
  const size_t n = 1024;
  std::vector<int> src_host = iota_vector(n, 3);
  Mem src(m.ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), src_host.data());
  Mem dst(m.ctx, CL_MEM_READ_WRITE, n * sizeof(int));
  Event copied, added;
  CL_REQUIRE(clEnqueueCopyBuffer(m.qp, src, dst, 0, 0, n * sizeof(int), 0, nullptr, &copied));
  set_args(add, dst.m, 5);
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, add, 1, nullptr, &n, nullptr, 1, &copied, &added));
  std::vector<int> out(n);
  CL_REQUIRE(clEnqueueReadBuffer(m.qp, dst, CL_TRUE, 0, n * sizeof(int), out.data(), 1, &added,
                                 nullptr));
  CHECK(out == iota_vector(n, 8));
  cl_device_id ran = nullptr;
  CL_REQUIRE(clGetEventInfo(added, CL_EVENT_DEVICE_PARASOL, sizeof ran, &ran, nullptr));
  CHECK(ran == m.grind);
}

TEST_CASE("a sub-buffer window written on PoCL is read by a kernel on Oclgrind and the rest of the parent is intact") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel iota(prog, "iota_from"), copy(prog, "copy_int");
  const size_t n = 2048, origin = 512, wn = 256;  // window [512, 768) ints = 2048 bytes offset
  std::vector<int> ref = iota_vector(n, 100000);
  Mem parent(m.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(int), ref.data());
  cl_buffer_region region{origin * sizeof(int), wn * sizeof(int)};
  cl_int err = CL_SUCCESS;
  Mem window(clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region,
                               &err));
  CL_REQUIRE(err);
  Mem out(m.ctx, CL_MEM_READ_WRITE, wn * sizeof(int));

  Event wrote, copied;
  set_args(iota, window.m, -7000);
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qp, iota, 1, nullptr, &wn, nullptr, 0, nullptr, &wrote));
  set_args(copy, window.m, out.m);
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, copy, 1, nullptr, &wn, nullptr, 1, &wrote, &copied));
  CL_REQUIRE(clWaitForEvents(1, &copied));

  for (size_t i = 0; i < wn; ++i) ref[origin + i] = -7000 + int(i);
  CHECK(read_ints(m.qp, out, wn) == std::vector<int>(ref.begin() + origin, ref.begin() + origin + wn));
  CHECK(read_ints(m.qg, parent, n) == ref);
  CHECK(read_ints(m.qp, window, wn) == iota_vector(wn, -7000));
}

TEST_CASE("bytes written through a pointer mapped on the PoCL queue reach a kernel on Oclgrind") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel add(prog, "add_const_int");
  const size_t n = 1024;
  std::vector<int> ref = iota_vector(n);
  Mem buf(m.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(int), ref.data());

  cl_map_flags flags = GENERATE(cl_map_flags{CL_MAP_WRITE}, cl_map_flags{CL_MAP_READ | CL_MAP_WRITE},
                                cl_map_flags{CL_MAP_WRITE_INVALIDATE_REGION});
  INFO("map flags " << flags);
  cl_int err = CL_SUCCESS;
  Event mapped, unmapped, added;
  auto* p = static_cast<int*>(clEnqueueMapBuffer(m.qp, buf, CL_TRUE, flags, 100 * sizeof(int),
                                                 200 * sizeof(int), 0, nullptr, &mapped, &err));
  CL_REQUIRE(err);
  REQUIRE(p != nullptr);
  if (flags & CL_MAP_READ)
    for (size_t i = 0; i < 200; ++i) REQUIRE(p[i] == int(i) + 100);
  for (size_t i = 0; i < 200; ++i) p[i] = 5000 + int(i);
  for (size_t i = 0; i < 200; ++i) ref[100 + i] = 5000 + int(i);
  cl_uint maps = 0;
  CL_REQUIRE(clGetMemObjectInfo(buf, CL_MEM_MAP_COUNT, sizeof maps, &maps, nullptr));
  CHECK(maps == 1);
  CL_REQUIRE(clEnqueueUnmapMemObject(m.qp, buf, p, 0, nullptr, &unmapped));
  set_args(add, buf.m, 1);
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, add, 1, nullptr, &n, nullptr, 1, &unmapped, &added));
  for (auto& v : ref) v += 1;
  std::vector<int> out(n);
  CL_REQUIRE(clEnqueueReadBuffer(m.qg, buf, CL_TRUE, 0, n * sizeof(int), out.data(), 0, nullptr,
                                 nullptr));
  CHECK(out == ref);
  CL_REQUIRE(clGetMemObjectInfo(buf, CL_MEM_MAP_COUNT, sizeof maps, &maps, nullptr));
  CHECK(maps == 0);
}

TEST_CASE("two kernels on two vendors writing disjoint halves of one buffer both survive") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel on_pocl(prog, "iota_from"), on_grind(prog, "iota_from");
  const size_t n = 2048, half = n / 2;
  std::vector<int> init(n, -1);
  Mem buf(m.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(int), init.data());
  // Both are enqueued before either may start: a user event opens both at once.
  UserEvent gate(m.ctx);
  Event e1, e2;
  std::vector<int> expect(n);

  SECTION("through two sub-buffers") {
    cl_int err = CL_SUCCESS;
    cl_buffer_region lo{0, half * sizeof(int)}, hi{half * sizeof(int), half * sizeof(int)};
    Mem a(clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &lo, &err));
    CL_REQUIRE(err);
    Mem b(clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &hi, &err));
    CL_REQUIRE(err);
    set_args(on_pocl, a.m, 10);
    set_args(on_grind, b.m, 20000);
    CL_REQUIRE(clEnqueueNDRangeKernel(m.qp, on_pocl, 1, nullptr, &half, nullptr, 1, gate.ptr(), &e1));
    CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, on_grind, 1, nullptr, &half, nullptr, 1, gate.ptr(), &e2));
    for (size_t i = 0; i < half; ++i) expect[i] = 10 + int(i), expect[half + i] = 20000 + int(i);
  }
  SECTION("through global work offsets on the whole buffer") {
    set_args(on_pocl, buf.m, 10);
    set_args(on_grind, buf.m, 20000);
    size_t zero = 0;
    CL_REQUIRE(clEnqueueNDRangeKernel(m.qp, on_pocl, 1, &zero, &half, nullptr, 1, gate.ptr(), &e1));
    CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, on_grind, 1, &half, &half, nullptr, 1, gate.ptr(), &e2));
    // iota_from writes base + global id: the offset shows in the values.
    for (size_t i = 0; i < half; ++i) expect[i] = 10 + int(i), expect[half + i] = 20000 + int(half + i);
  }
  gate.set(CL_COMPLETE);
  cl_event both[2] = {e1, e2};
  CL_REQUIRE(clWaitForEvents(2, both));
  CHECK(read_ints(m.qp, buf, n) == expect);
}

TEST_CASE("clEnqueueMigrateMemObjects to each vendor then a kernel there computes on current data") {
  MixedPair m;
  Program prog(m.ctx, kIntKernels);
  Kernel add(prog, "add_const_int");
  const size_t n = 512;
  std::vector<int> host = iota_vector(n, 1);
  Mem buf(m.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(int), host.data());
  cl_mem list[] = {buf.m};
  Event mg1, k1, mg2, k2, mh;
  CL_REQUIRE(clEnqueueMigrateMemObjects(m.qg, 1, list, 0, 0, nullptr, &mg1));
  set_args(add, buf.m, 4);
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, add, 1, nullptr, &n, nullptr, 0, nullptr, &k1));
  CL_REQUIRE(clEnqueueMigrateMemObjects(m.qp, 1, list, 0, 1, &k1, &mg2));
  set_args(add, buf.m, 100);
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qp, add, 1, nullptr, &n, nullptr, 0, nullptr, &k2));
  CL_REQUIRE(clEnqueueMigrateMemObjects(m.qp, 1, list, CL_MIGRATE_MEM_OBJECT_HOST, 0, nullptr, &mh));
  CL_REQUIRE(clWaitForEvents(1, &mh));
  CHECK(event_status(mg1) == CL_COMPLETE);
  CHECK(event_status(mg2) == CL_COMPLETE);
  cl_command_type type = 0;
  CL_REQUIRE(clGetEventInfo(mg2, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  CHECK(type == CL_COMMAND_MIGRATE_MEM_OBJECTS);
  CHECK(read_ints(m.qg, buf, n) == iota_vector(n, 105));

  // CONTENT_UNDEFINED then a whole overwrite: the new data is what counts.
  Kernel iota(prog, "iota_from");
  CL_REQUIRE(clEnqueueMigrateMemObjects(m.qg, 1, list, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0,
                                        nullptr, nullptr));
  set_args(iota, buf.m, 77);
  CL_REQUIRE(clEnqueueNDRangeKernel(m.qg, iota, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  CL_REQUIRE(clFinish(m.qg));
  CHECK(read_ints(m.qp, buf, n) == iota_vector(n, 77));
}
