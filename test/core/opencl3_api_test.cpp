// The OpenCL 2.x and 3.0 API on Parasol: the queries and entry points a 3.0
// platform answers (clCloneKernel, the *WithProperties forms and their
// *_PROPERTIES queries, empty NDRanges, a null local size taking
// reqd_work_group_size) and the spec's answers for the optional features
// Parasol does not carry (SVM, pipes, device-side queues, 2D images from
// buffers).
#include <vector>

#include "core/core_fixture.h"

using namespace parasol_test;

TEST_CASE("a cloned kernel runs with the original's arguments, and each keeps its own") {
  for (cl_device_id d : devices()) {
    INFO(device_name(d));
    Context ctx{{d}};
    Queue q{ctx, d};
    Program prog(ctx, kIntKernels);
    Kernel add(prog, "add_const_int");
    const size_t n = 32;
    Mem a(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), iota_vector(n).data());
    Mem b(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), iota_vector(n).data());
    set_args(add, a.m, 5);
    cl_int err;
    cl_kernel clone = clCloneKernel(add, &err);
    CL_REQUIRE(err);
    // The clone has a's arguments; changing them leaves the original's.
    const int c = 100;
    CL_REQUIRE(clSetKernelArg(clone, 1, sizeof c, &c));
    CL_REQUIRE(clEnqueueNDRangeKernel(q, clone, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clSetKernelArg(clone, 0, sizeof b.m, &b.m));
    CL_REQUIRE(clEnqueueNDRangeKernel(q, clone, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CHECK(read_ints(q, a, n) == iota_vector(n, 105));
    CHECK(read_ints(q, b, n) == iota_vector(n, 100));
    char name[64] = "";
    CL_REQUIRE(clGetKernelInfo(clone, CL_KERNEL_FUNCTION_NAME, sizeof name, name, nullptr));
    CHECK(std::string(name) == "add_const_int");
    clReleaseKernel(clone);
    CHECK(clCloneKernel(nullptr, &err) == nullptr);
    CHECK(err == CL_INVALID_KERNEL);
  }
}

TEST_CASE("an NDRange without work-items completes once its wait list has") {
  for (cl_device_id d : devices()) {
    INFO(device_name(d));
    Context ctx{{d}};
    Queue q{ctx, d, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
    Program prog(ctx, kIntKernels);
    Kernel add(prog, "add_const_int");
    const size_t n = 16;
    Mem a(ctx, CL_MEM_COPY_HOST_PTR, n * sizeof(int), iota_vector(n).data());
    set_args(add, a.m, 7);
    UserEvent gate(ctx);
    const size_t zero_2d[2] = {4, 0};
    Event none, null_size;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 2, nullptr, zero_2d, nullptr, 1, gate.ptr(), &none));
    CL_REQUIRE(clEnqueueNDRangeKernel(q, add, 1, nullptr, nullptr, nullptr, 0, nullptr, &null_size));
    CHECK(wait_bounded(null_size, 20) == CL_COMPLETE);
    CHECK(event_status(none) > CL_COMPLETE);  // waits for the gate
    gate.set(CL_COMPLETE);
    CHECK(wait_bounded(none, 20) == CL_COMPLETE);
    CHECK(read_ints(q, a, n) == iota_vector(n));  // nothing ran
  }
}

TEST_CASE("a null local size takes the kernel's reqd_work_group_size on every device") {
  // Parasol gives each device the required size itself: PoCL 3.1 refuses a
  // null one for such a kernel when used directly.
  for (cl_device_id d : devices()) {
    INFO(device_name(d));
    Context ctx{{d}};
    Queue q{ctx, d};
    Program prog(ctx,
                 "__kernel __attribute__((reqd_work_group_size(2, 3, 1)))\n"
                 "void sizes(__global int* out) {\n"
                 "  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
                 "  out[i] = get_local_size(0) * 10 + get_local_size(1);\n"
                 "}\n");
    Kernel k(prog, "sizes");
    const size_t global[2] = {4, 6}, n = 24;
    Mem out(ctx, CL_MEM_READ_WRITE, n * sizeof(int));
    set_args(k, out.m);
    for (cl_uint work_dim : {2u, 3u}) {
      INFO("work_dim " << work_dim);
      const size_t global3[3] = {global[0], global[1], 1};
      CL_REQUIRE(clEnqueueNDRangeKernel(q, k, work_dim, nullptr, global3, nullptr, 0, nullptr,
                                        nullptr));
      CHECK(read_ints(q, out, n) == std::vector<int>(n, 23));
    }
    // The required size does not fit a 1D range, nor divide this one.
    CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr) ==
          CL_INVALID_WORK_GROUP_SIZE);
    const size_t odd[2] = {5, 6};
    CHECK(clEnqueueNDRangeKernel(q, k, 2, nullptr, odd, nullptr, 0, nullptr, nullptr) ==
          CL_INVALID_WORK_GROUP_SIZE);
  }
}

TEST_CASE("*WithProperties forms give their properties back; unknown ones are refused") {
  cl_device_id d = pocl_devices().at(0);
  Context ctx{{d}};
  cl_int err;
  const cl_mem_properties none[] = {0};
  cl_mem buf = clCreateBufferWithProperties(ctx, none, CL_MEM_READ_WRITE, 64, nullptr, &err);
  CL_REQUIRE(err);
  size_t size = 99;
  CL_REQUIRE(clGetMemObjectInfo(buf, CL_MEM_PROPERTIES, 0, nullptr, &size));
  CHECK(size == sizeof(cl_mem_properties));
  cl_mem plain = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, nullptr, &err);
  CL_REQUIRE(clGetMemObjectInfo(plain, CL_MEM_PROPERTIES, 0, nullptr, &size));
  CHECK(size == 0);
  const cl_mem_properties bogus[] = {0x7777, 1, 0};
  CHECK(clCreateBufferWithProperties(ctx, bogus, CL_MEM_READ_WRITE, 64, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_PROPERTY);

  const cl_sampler_properties sp[] = {CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE,
                                      CL_SAMPLER_ADDRESSING_MODE, CL_ADDRESS_CLAMP_TO_EDGE, 0};
  cl_sampler s = clCreateSamplerWithProperties(ctx, sp, &err);
  CL_REQUIRE(err);
  std::vector<cl_sampler_properties> back(5);
  CL_REQUIRE(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, back.size() * sizeof back[0], back.data(),
                              &size));
  CHECK(size == sizeof sp);
  CHECK(std::equal(back.begin(), back.end(), sp));
  cl_filter_mode filter = 0;
  CL_REQUIRE(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof filter, &filter, nullptr));
  CHECK(filter == CL_FILTER_NEAREST);  // the default

  const cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, d, qp, &err);
  CL_REQUIRE(err);
  std::vector<cl_queue_properties> qback(3);
  CL_REQUIRE(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, qback.size() * sizeof qback[0],
                                   qback.data(), &size));
  CHECK(size == sizeof qp);
  CHECK(std::equal(qback.begin(), qback.end(), qp));
  // Device-side queues: no device offers them.
  const cl_queue_properties on_device[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  CHECK(clCreateCommandQueueWithProperties(ctx, d, on_device, &err) == nullptr);
  CHECK(err == CL_INVALID_QUEUE_PROPERTIES);
  clReleaseCommandQueue(q);
  clReleaseSampler(s);
  clReleaseMemObject(plain);
  clReleaseMemObject(buf);
}

TEST_CASE("optional features Parasol does not carry answer as for a device without them") {
  cl_device_id d = pocl_devices().at(0);
  Context ctx{{d}};
  cl_device_svm_capabilities svm = 1;
  CL_REQUIRE(clGetDeviceInfo(d, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, nullptr));
  CHECK(svm == 0);
  CHECK(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 0) == nullptr);
  cl_bool pipes = CL_TRUE;
  CL_REQUIRE(clGetDeviceInfo(d, CL_DEVICE_PIPE_SUPPORT, sizeof pipes, &pipes, nullptr));
  CHECK(pipes == CL_FALSE);
  cl_int err;
  CHECK(clCreatePipe(ctx, CL_MEM_READ_WRITE, 4, 16, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_OPERATION);
  Mem buf(ctx, CL_MEM_READ_WRITE, 4096);
  cl_uint packet = 0;
  CHECK(clGetPipeInfo(buf, CL_PIPE_PACKET_SIZE, sizeof packet, &packet, nullptr) ==
        CL_INVALID_MEM_OBJECT);
  // A 2D image from a buffer (cl_khr_image2d_from_buffer).
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 16;
  desc.image_height = 16;
  desc.buffer = buf.m;
  const cl_image_format f{CL_RGBA, CL_UNORM_INT8};
  CHECK(clCreateImage(ctx, CL_MEM_READ_WRITE, &f, &desc, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_OPERATION);
  cl_ulong host_time = 0;
  CHECK(clGetHostTimer(d, &host_time) == CL_INVALID_OPERATION);
  // Misuse the 3.0 checks added: type 0, an interop-sync value.
  cl_uint n = 0;
  CHECK(clGetDeviceIDs(parasol_platform(), 0, 0, nullptr, &n) == CL_INVALID_DEVICE_TYPE);
  const cl_context_properties bad_sync[] = {CL_CONTEXT_INTEROP_USER_SYNC, -1, 0};
  CHECK(clCreateContext(bad_sync, 1, &d, nullptr, nullptr, &err) == nullptr);
  CHECK(err == CL_INVALID_PROPERTY);
}
