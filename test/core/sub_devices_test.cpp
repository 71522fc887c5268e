// Sub-devices: a vendor device partitions as its vendor's does (the same
// schemes, counts, errors and answers, compared with the vendor's own
// clCreateSubDevices), the native device as PoCL's CPU device does (its
// CL_DEVICE_PARTITION_TYPE as the spec says: the properties as given), and
// kernels on sub-devices give the CPU's results, through device queues and
// a context queue, nested partitions included.
#include <chrono>
#include <thread>
#include <vector>

#include "support/parasol_test.h"

using namespace parasol_test;

namespace {

using Properties = std::vector<cl_device_partition_property>;

// The schemes tried: valid and invalid, for devices of one to a few
// compute units.
std::vector<Properties> schemes() {
  return {
      {CL_DEVICE_PARTITION_EQUALLY, 1, 0},
      {CL_DEVICE_PARTITION_EQUALLY, 2, 0},
      {CL_DEVICE_PARTITION_EQUALLY, 1000, 0},
      {CL_DEVICE_PARTITION_EQUALLY, 0, 0},
      {CL_DEVICE_PARTITION_BY_COUNTS, 1, CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0},
      {CL_DEVICE_PARTITION_BY_COUNTS, 1, 1, CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0},
      {CL_DEVICE_PARTITION_BY_COUNTS, 1000, CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0},
      {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0},
      {0x7777, 1, 0},
  };
}

struct Outcome {
  cl_int err = CL_SUCCESS;
  std::vector<cl_uint> units;                   // each sub-device's compute units
  std::vector<Properties> types;                // each one's CL_DEVICE_PARTITION_TYPE
};

Properties partition_type(cl_device_id d) {
  size_t size = 0;
  CL_REQUIRE(clGetDeviceInfo(d, CL_DEVICE_PARTITION_TYPE, 0, nullptr, &size));
  Properties p(size / sizeof(cl_device_partition_property));
  if (size) CL_REQUIRE(clGetDeviceInfo(d, CL_DEVICE_PARTITION_TYPE, size, p.data(), nullptr));
  return p;
}

cl_uint compute_units(cl_device_id d) {
  cl_uint n = 0;
  CL_REQUIRE(clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof n, &n, nullptr));
  return n;
}

// Partitions d by p; releases what it made.
Outcome partition(cl_device_id d, const Properties& p) {
  Outcome o;
  cl_uint n = 0;
  o.err = clCreateSubDevices(d, p.data(), 0, nullptr, &n);
  if (o.err != CL_SUCCESS) return o;
  std::vector<cl_device_id> subs(n);
  CL_REQUIRE(clCreateSubDevices(d, p.data(), n, subs.data(), nullptr));
  for (cl_device_id s : subs) {
    o.units.push_back(compute_units(s));
    o.types.push_back(partition_type(s));
    cl_device_id parent = nullptr;
    CL_REQUIRE(clGetDeviceInfo(s, CL_DEVICE_PARENT_DEVICE, sizeof parent, &parent, nullptr));
    CHECK(parent == d);
    CL_REQUIRE(clReleaseDevice(s));
  }
  return o;
}

template <class T>
std::vector<T> device_array(cl_device_id d, cl_device_info what) {
  size_t size = 0;
  CL_REQUIRE(clGetDeviceInfo(d, what, 0, nullptr, &size));
  std::vector<T> v(size / sizeof(T));
  if (size) CL_REQUIRE(clGetDeviceInfo(d, what, size, v.data(), nullptr));
  return v;
}

const char* kScale = R"(
__kernel void scale(__global float* x, float a) {
  size_t i = get_global_id(0);
  x[i] = x[i] * a + (float)i;
})";

// Runs scale on a device queue of every device of ctx in turn, then on a
// context queue, over one buffer: the CPU's answer.
void check_scale_runs(const std::vector<cl_device_id>& devs) {
  Context ctx(devs);
  Program prog(ctx, kScale);
  Kernel k(prog, "scale");
  const size_t n = 4096;
  std::vector<float> host(n), expect(n);
  for (size_t i = 0; i < n; ++i) host[i] = expect[i] = static_cast<float>(i % 97);
  Mem buf(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), host.data());
  const float a = 0.5f;
  set_args(k, buf.m, a);
  auto apply = [&] {
    for (size_t i = 0; i < n; ++i) expect[i] = expect[i] * a + static_cast<float>(i);
  };
  for (cl_device_id d : devs) {
    Queue q(ctx, d);
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clFinish(q));
    apply();
  }
  cl_int err = CL_SUCCESS;
  cl_command_queue cq = clCreateCommandQueue(ctx, nullptr, 0, &err);
  CL_REQUIRE(err);
  for (int i = 0; i < 3; ++i) {
    CL_REQUIRE(clEnqueueNDRangeKernel(cq, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    apply();
  }
  std::vector<float> out(n);
  CL_REQUIRE(clEnqueueReadBuffer(cq, buf, CL_TRUE, 0, n * sizeof(float), out.data(), 0, nullptr,
                                 nullptr));
  CL_REQUIRE(clReleaseCommandQueue(cq));
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += out[i] != expect[i];
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("a vendor device partitions as its vendor's own device does") {
  auto pocl = pocl_devices();
  REQUIRE(!pocl.empty());
  for (cl_device_id d : pocl) {
    cl_device_id v = vendor_device(d);
    for (cl_device_info q : {CL_DEVICE_PARTITION_MAX_SUB_DEVICES})
      CHECK(device_array<cl_uint>(d, q) == device_array<cl_uint>(v, q));
    CHECK(device_array<cl_device_partition_property>(d, CL_DEVICE_PARTITION_PROPERTIES) ==
          device_array<cl_device_partition_property>(v, CL_DEVICE_PARTITION_PROPERTIES));
    CHECK(device_array<cl_device_affinity_domain>(d, CL_DEVICE_PARTITION_AFFINITY_DOMAIN) ==
          device_array<cl_device_affinity_domain>(v, CL_DEVICE_PARTITION_AFFINITY_DOMAIN));
    CHECK(partition_type(d) == partition_type(v));
    for (const Properties& p : schemes()) {
      CAPTURE(p);
      Outcome mine = partition(d, p), theirs = partition(v, p);
      CHECK(mine.err == theirs.err);
      CHECK(mine.units == theirs.units);
      CHECK(mine.types == theirs.types);
    }
  }
}

TEST_CASE("the native device partitions as PoCL's CPU device of as many compute units does") {
  auto native = native_devices();
  auto pocl = pocl_devices();
  REQUIRE(!pocl.empty());
  if (native.empty()) return;  // PARASOL_NATIVE_DEVICE=0
  cl_device_id d = native[0], v = vendor_device(pocl[0]);
  if (compute_units(d) != compute_units(v)) {
    WARN("the native device and PoCL's have different compute units here: not compared");
    return;
  }
  CHECK(device_array<cl_uint>(d, CL_DEVICE_PARTITION_MAX_SUB_DEVICES) ==
        device_array<cl_uint>(v, CL_DEVICE_PARTITION_MAX_SUB_DEVICES));
  for (const Properties& p : schemes()) {
    if (p[0] == CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN) continue;  // it has no NUMA domains
    CAPTURE(p);
    Outcome mine = partition(d, p), theirs = partition(v, p);
    CHECK(mine.err == theirs.err);
    CHECK(mine.units == theirs.units);
    // PoCL 3.1 leaves out the 0 that ends a list of counts.
    for (const Properties& type : mine.types) CHECK(type == p);
  }
}

TEST_CASE("kernels on sub-devices give the CPU's results, nested partitions included") {
  std::vector<cl_device_id> roots = pocl_devices();
  auto native = native_devices();
  roots.insert(roots.end(), native.begin(), native.end());
  REQUIRE(!roots.empty());
  std::vector<cl_device_id> subs;
  for (cl_device_id d : roots) {
    const Properties one{CL_DEVICE_PARTITION_EQUALLY, 1, 0};
    cl_uint n = 0;
    CL_REQUIRE(clCreateSubDevices(d, one.data(), 0, nullptr, &n));
    std::vector<cl_device_id> made(n);
    CL_REQUIRE(clCreateSubDevices(d, one.data(), n, made.data(), nullptr));
    subs.insert(subs.end(), made.begin(), made.end());
  }
  SECTION("sub-devices alone, several of one root in one context") {
    check_scale_runs(subs);
  }
  SECTION("a sub-device beside its root") {
    check_scale_runs({roots[0], subs[0]});
  }
  SECTION("sub-devices of a sub-device") {
    for (cl_device_id root : roots) {
      const cl_uint units = compute_units(root);
      if (units < 2) continue;
      const Properties all{CL_DEVICE_PARTITION_BY_COUNTS, units,
                           CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
      cl_device_id whole = nullptr;
      CL_REQUIRE(clCreateSubDevices(root, all.data(), 1, &whole, nullptr));
      const Properties one{CL_DEVICE_PARTITION_EQUALLY, 1, 0};
      std::vector<cl_device_id> nested(units);
      CL_REQUIRE(clCreateSubDevices(whole, one.data(), units, nested.data(), nullptr));
      for (cl_device_id n : nested) {
        cl_device_id parent = nullptr;
        CL_REQUIRE(clGetDeviceInfo(n, CL_DEVICE_PARENT_DEVICE, sizeof parent, &parent, nullptr));
        CHECK(parent == whole);
        CHECK(compute_units(n) == 1);
      }
      check_scale_runs(nested);
      for (cl_device_id n : nested) CL_REQUIRE(clReleaseDevice(n));
      CL_REQUIRE(clReleaseDevice(whole));
    }
  }
  for (cl_device_id s : subs) CL_REQUIRE(clReleaseDevice(s));
}

TEST_CASE("sub-devices are reference counted; root devices are not") {
  auto roots = pocl_devices();
  REQUIRE(!roots.empty());
  cl_device_id root = roots[0];
  cl_uint refs = 0;
  CL_REQUIRE(clRetainDevice(root));
  CL_REQUIRE(clGetDeviceInfo(root, CL_DEVICE_REFERENCE_COUNT, sizeof refs, &refs, nullptr));
  CHECK(refs == 1);
  CL_REQUIRE(clReleaseDevice(root));
  cl_device_id parent = root;
  CL_REQUIRE(clGetDeviceInfo(root, CL_DEVICE_PARENT_DEVICE, sizeof parent, &parent, nullptr));
  CHECK(parent == nullptr);

  const Properties one{CL_DEVICE_PARTITION_BY_COUNTS, 1, CL_DEVICE_PARTITION_BY_COUNTS_LIST_END,
                       0};
  cl_device_id sub = nullptr;
  CL_REQUIRE(clCreateSubDevices(root, one.data(), 1, &sub, nullptr));
  CL_REQUIRE(clRetainDevice(sub));
  CL_REQUIRE(clGetDeviceInfo(sub, CL_DEVICE_REFERENCE_COUNT, sizeof refs, &refs, nullptr));
  CHECK(refs == 2);
  CL_REQUIRE(clReleaseDevice(sub));
  {
    // A context holds a reference on its sub-devices: released by the
    // application, they still run its kernels.
    Context ctx({sub});
    CL_REQUIRE(clGetDeviceInfo(sub, CL_DEVICE_REFERENCE_COUNT, sizeof refs, &refs, nullptr));
    CHECK(refs == 2);
    CL_REQUIRE(clReleaseDevice(sub));
    Program prog(ctx, kScale);
    Kernel k(prog, "scale");
    float x = 2.0f;
    Mem buf(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof x, &x);
    set_args(k, buf.m, 3.0f);
    cl_device_id listed = nullptr;
    CL_REQUIRE(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof listed, &listed, nullptr));
    Queue q(ctx, listed);
    const size_t one_item = 1;
    CL_REQUIRE(clEnqueueNDRangeKernel(q, k, 1, nullptr, &one_item, nullptr, 0, nullptr, nullptr));
    CL_REQUIRE(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof x, &x, 0, nullptr, nullptr));
    CHECK(x == 6.0f);
  }
  // The context was its last holder: once finished commands let go of it
  // (on Parasol's own threads), the sub-device's handle is no longer valid.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  cl_int err = CL_SUCCESS;
  while ((err = parasol_dispatch(root).clGetDeviceInfo(sub, CL_DEVICE_REFERENCE_COUNT, sizeof refs,
                                                       &refs, nullptr)) == CL_SUCCESS &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(err == CL_INVALID_DEVICE);
}

TEST_CASE("clCreateSubDevices refuses misuse with the spec's codes") {
  auto roots = pocl_devices();
  REQUIRE(!roots.empty());
  cl_device_id root = roots[0];
  cl_uint n = 0;
  CHECK(clCreateSubDevices(root, nullptr, 0, nullptr, &n) == CL_INVALID_VALUE);
  const Properties empty{0};
  CHECK(clCreateSubDevices(root, empty.data(), 0, nullptr, &n) == CL_INVALID_VALUE);
  const Properties counts{CL_DEVICE_PARTITION_BY_COUNTS, 1, 1,
                          CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
  if (compute_units(root) >= 2) {
    cl_device_id one = nullptr;
    CHECK(clCreateSubDevices(root, counts.data(), 1, &one, nullptr) == CL_INVALID_VALUE);
    CHECK(one == nullptr);
  }
  int not_a_device = 0;
  CHECK(parasol_dispatch(root).clCreateSubDevices(reinterpret_cast<cl_device_id>(&not_a_device),
                                                  counts.data(), 0, nullptr,
                                                  &n) == CL_INVALID_DEVICE);
}
