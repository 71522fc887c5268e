#include "support/parasol_test.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

namespace parasol_test {
namespace {

std::string platform_name(cl_platform_id p) {
  char name[256] = "";
  clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
  return name;
}

std::vector<cl_platform_id> all_platforms() {
  cl_uint n = 0;
  clGetPlatformIDs(0, nullptr, &n);
  std::vector<cl_platform_id> ids(n);
  if (n) clGetPlatformIDs(n, ids.data(), nullptr);
  return ids;
}

}  // namespace

cl_platform_id parasol_platform() {
  for (auto p : all_platforms())
    if (platform_name(p) == "Parasol") return p;
  FAIL("the Parasol platform is not registered (OCL_ICD_VENDORS?)");
  return nullptr;
}

cl_platform_id vendor_platform(const std::string& prefix) {
  for (auto p : all_platforms())
    if (platform_name(p).rfind(prefix, 0) == 0) return p;
  return nullptr;
}

int pocl_major_version() {
  cl_platform_id p = vendor_platform("Portable Computing Language");
  char version[256] = "";
  if (!p || clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof version - 1, version, nullptr) !=
                CL_SUCCESS)
    return 0;
  const char* at = std::strstr(version, "PoCL ");
  return at ? std::atoi(at + 5) : 0;
}

std::vector<cl_device_id> devices(cl_device_type type) {
  cl_uint n = 0;
  if (clGetDeviceIDs(parasol_platform(), type, 0, nullptr, &n) != CL_SUCCESS) return {};
  std::vector<cl_device_id> ids(n);
  CL_REQUIRE(clGetDeviceIDs(parasol_platform(), type, n, ids.data(), nullptr));
  return ids;
}

std::string device_name(cl_device_id d) {
  char name[256] = "";
  clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, nullptr);
  return name;
}

cl_device_id ran_on(cl_event e) {
  cl_device_id d = nullptr;
  CL_REQUIRE(clGetEventInfo(e, CL_EVENT_DEVICE_PARASOL, sizeof d, &d, nullptr));
  return d;
}

cl_parasol_device_stats device_stats(cl_device_id d) {
  auto fn = reinterpret_cast<clGetDeviceStatsPARASOL_fn>(
      clGetExtensionFunctionAddressForPlatform(parasol_platform(), "clGetDeviceStatsPARASOL"));
  REQUIRE(fn);
  cl_parasol_device_stats s{};
  CL_REQUIRE(fn(d, &s));
  return s;
}

cl_parasol_device_paths device_paths(cl_device_id d) {
  static const auto fn = reinterpret_cast<clGetDevicePathsPARASOL_fn>(
      clGetExtensionFunctionAddressForPlatform(parasol_platform(), "clGetDevicePathsPARASOL"));
  REQUIRE(fn);
  cl_parasol_device_paths p{};
  CL_REQUIRE(fn(d, &p));
  return p;
}

std::string vendor_of(cl_device_id d) {
  char name[256] = "";
  clGetDeviceInfo(d, CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL, sizeof name, name, nullptr);
  return name;
}

std::vector<cl_device_id> devices_of(const std::string& prefix) {
  std::vector<cl_device_id> out;
  for (auto d : devices())
    if (vendor_of(d).rfind(prefix, 0) == 0) out.push_back(d);
  return out;
}

std::vector<cl_device_id> pocl_devices() { return devices_of("Portable Computing Language"); }
std::vector<cl_device_id> native_devices() {
  std::vector<cl_device_id> out;
  for (auto d : devices())
    if (vendor_of(d) == "Parasol") out.push_back(d);
  return out;
}
std::vector<cl_device_id> oclgrind_devices() {
  const char* other = std::getenv("PARASOL_TEST_OTHER_VENDOR");
  return devices_of(other && *other ? other : "Oclgrind");
}

Context::Context(const std::vector<cl_device_id>& devs, const cl_context_properties* props) {
  REQUIRE(!devs.empty());
  cl_int err = CL_SUCCESS;
  ctx = clCreateContext(props, static_cast<cl_uint>(devs.size()), devs.data(), nullptr, nullptr,
                        &err);
  CL_REQUIRE(err);
}
Context::~Context() { if (ctx) clReleaseContext(ctx); }

Queue::Queue(cl_context ctx, cl_device_id dev, cl_command_queue_properties props) {
  cl_int err = CL_SUCCESS;
  q = clCreateCommandQueue(ctx, dev, props, &err);
  CL_REQUIRE(err);
}
Queue::~Queue() { if (q) clReleaseCommandQueue(q); }

Program::Program(cl_context ctx, const std::string& source, const std::string& options) {
  const char* text = source.c_str();
  cl_int err = CL_SUCCESS;
  prog = clCreateProgramWithSource(ctx, 1, &text, nullptr, &err);
  CL_REQUIRE(err);
  err = clBuildProgram(prog, 0, nullptr, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    cl_uint n = 0;
    clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof n, &n, nullptr);
    std::vector<cl_device_id> devs(n);
    clGetProgramInfo(prog, CL_PROGRAM_DEVICES, n * sizeof(cl_device_id), devs.data(), nullptr);
    for (auto d : devs) {
      size_t size = 0;
      clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      UNSCOPED_INFO("build log on " << device_name(d) << ":\n" << log);
    }
  }
  CL_REQUIRE(err);
}
Program::~Program() { if (prog) clReleaseProgram(prog); }

Kernel::Kernel(cl_program prog, const char* name) {
  cl_int err = CL_SUCCESS;
  k = clCreateKernel(prog, name, &err);
  CL_REQUIRE(err);
}
Kernel::~Kernel() { if (k) clReleaseKernel(k); }

Mem::Mem(cl_context ctx, cl_mem_flags flags, size_t size, void* host) {
  cl_int err = CL_SUCCESS;
  m = clCreateBuffer(ctx, flags, size, host, &err);
  CL_REQUIRE(err);
}
Mem::~Mem() { if (m) clReleaseMemObject(m); }

Event::~Event() { if (e) clReleaseEvent(e); }

cl_int event_status(cl_event e) {
  cl_int status = 0;
  CL_REQUIRE(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  return status;
}

cl_int wait_bounded(cl_event e, double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  cl_int status = CL_QUEUED;
  for (;;) {
    status = event_status(e);
    if (status <= CL_COMPLETE || std::chrono::steady_clock::now() > deadline) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

bool returns_within(std::function<void()> fn, double seconds) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread([fn = std::move(fn), done] {
    fn();
    done->store(true);
  }).detach();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done->load()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

const cl_icd_dispatch& parasol_dispatch(const void* h) {
  return **static_cast<const cl_icd_dispatch* const*>(h);
}

cl_device_id vendor_device(cl_device_id d) {
  cl_device_id v = nullptr;
  CL_REQUIRE(clGetDeviceInfo(d, CL_DEVICE_VENDOR_DEVICE_PARASOL, sizeof v, &v, nullptr));
  return v;
}

UserEvent::UserEvent(cl_context ctx) {
  cl_int err = CL_SUCCESS;
  e = clCreateUserEvent(ctx, &err);
  CL_REQUIRE(err);
}
UserEvent::~UserEvent() {
  if (!e) return;
  if (!set_once) clSetUserEventStatus(e, CL_COMPLETE);
  clReleaseEvent(e);
}
void UserEvent::set(cl_int status) {
  set_once = true;
  CL_REQUIRE(clSetUserEventStatus(e, status));
}

std::string fresh_source_tag() {
  auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  return "// fresh " + std::to_string(getpid()) + "-" + std::to_string(stamp) + "\n";
}

std::string build_log(cl_program p, cl_device_id d) {
  size_t size = 0;
  if (clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS)
    return "(no log)";
  std::string log(size, '\0');
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  return log.c_str();
}

cl_program build_program(cl_context ctx, const std::string& source, cl_int& build_err,
                         const std::string& options) {
  const char* text = source.c_str();
  cl_int err = CL_SUCCESS;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &text, nullptr, &err);
  CL_REQUIRE(err);
  build_err = clBuildProgram(prog, 0, nullptr, options.c_str(), nullptr, nullptr);
  return prog;
}

}  // namespace parasol_test
