// Shared support for Parasol's tests: the platform, its devices grouped by
// the vendor behind them, and small helpers that fail the test (REQUIRE) on
// any unexpected OpenCL error.
#pragma once

#include <CL/cl.h>
#include <CL/cl_icd.h>
#include <CL/cl_parasol.h>
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

namespace parasol_test {

// REQUIRE that an OpenCL call returns CL_SUCCESS, naming the call on failure.
#define CL_REQUIRE(call)                          \
  do {                                            \
    cl_int cl_require_err_ = (call);              \
    INFO(#call " returned " << cl_require_err_);  \
    REQUIRE(cl_require_err_ == CL_SUCCESS);       \
  } while (0)

cl_platform_id parasol_platform();
// The vendor platform of the same name, used directly (for references).
cl_platform_id vendor_platform(const std::string& name_prefix);

// PoCL's release (3 for "OpenCL 3.0 PoCL 3.1+debian ..."), 0 without PoCL.
int pocl_major_version();

std::vector<cl_device_id> devices(cl_device_type type = CL_DEVICE_TYPE_ALL);
// Parasol devices whose vendor platform name starts with prefix
// ("Portable Computing Language", "Oclgrind").
std::vector<cl_device_id> devices_of(const std::string& vendor_prefix);
std::vector<cl_device_id> pocl_devices();
// Parasol's own native CPU device (vendor platform name exactly "Parasol"):
// one device, or none when built without the compiler or disabled by
// PARASOL_NATIVE_DEVICE=0.
std::vector<cl_device_id> native_devices();
// The suite's second vendor: Oclgrind, or the platform named by
// PARASOL_TEST_OTHER_VENDOR (on the GPU machine: "NVIDIA CUDA"), so every
// mixed-vendor test also runs with a real GPU beside PoCL.
std::vector<cl_device_id> oclgrind_devices();

std::string device_name(cl_device_id d);
std::string vendor_of(cl_device_id d);  // CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL
// The Parasol device that ran the command of e (CL_EVENT_DEVICE_PARASOL).
cl_device_id ran_on(cl_event e);
// clGetDeviceStatsPARASOL: commands, busy time, bytes moved of a device.
cl_parasol_device_stats device_stats(cl_device_id d);
// How commands reached a device (clGetDevicePathsPARASOL).
cl_parasol_device_paths device_paths(cl_device_id d);

// Owning wrappers so a failed REQUIRE never leaks handles.
struct Context {
  cl_context ctx = nullptr;
  explicit Context(const std::vector<cl_device_id>& devs,
                   const cl_context_properties* props = nullptr);
  ~Context();
  operator cl_context() const { return ctx; }
};

// Context properties choosing Parasol's scheduling policy `name`
// (CL_CONTEXT_SCHEDULER_PARASOL): Context ctx(devs, Policy("heft")).
struct Policy {
  explicit Policy(const char* name)
      : props{CL_CONTEXT_SCHEDULER_PARASOL, reinterpret_cast<cl_context_properties>(name), 0} {}
  operator const cl_context_properties*() const { return props; }
  cl_context_properties props[3];
};

struct Queue {
  cl_command_queue q = nullptr;
  Queue(cl_context ctx, cl_device_id dev, cl_command_queue_properties props = 0);
  ~Queue();
  operator cl_command_queue() const { return q; }
};

struct Program {
  cl_program prog = nullptr;
  // Builds for every device of the context; REQUIREs success.
  Program(cl_context ctx, const std::string& source, const std::string& options = "");
  ~Program();
  operator cl_program() const { return prog; }
};

struct Kernel {
  cl_kernel k = nullptr;
  Kernel(cl_program prog, const char* name);
  ~Kernel();
  operator cl_kernel() const { return k; }
};

struct Mem {
  cl_mem m = nullptr;
  Mem(cl_context ctx, cl_mem_flags flags, size_t size, void* host = nullptr);
  explicit Mem(cl_mem existing) : m(existing) {}
  ~Mem();
  operator cl_mem() const { return m; }
};

struct Event {
  cl_event e = nullptr;
  ~Event();
  cl_event* operator&() { return &e; }
  operator cl_event() const { return e; }
};

// Sets kernel arguments in order: set_args(k, buf, 2.0f, n).
inline void set_args_from(cl_kernel, cl_uint) {}
template <typename T, typename... Rest>
void set_args_from(cl_kernel k, cl_uint i, const T& v, const Rest&... rest) {
  CL_REQUIRE(clSetKernelArg(k, i, sizeof(T), &v));
  set_args_from(k, i + 1, rest...);
}
template <typename... Args>
void set_args(cl_kernel k, const Args&... args) { set_args_from(k, 0, args...); }

cl_int event_status(cl_event e);

// Polls until the event reaches CL_COMPLETE or an error, or the time is up;
// returns the last status seen (still positive on time-out). Never hangs.
cl_int wait_bounded(cl_event e, double seconds = 30.0);

// Runs fn on a helper thread; true if it returned within the time. A call
// that hangs is left behind (detached) so the test fails instead of hanging.
bool returns_within(std::function<void()> fn, double seconds = 30.0);

// Parasol's own dispatch table, read from a live Parasol handle: calls
// through it reach Parasol directly, even with handles the ICD loader could
// not dispatch (released, foreign, or pointers to stack structs).
const cl_icd_dispatch& parasol_dispatch(const void* live_parasol_handle);

// The vendor's own cl_device_id behind a Parasol device.
cl_device_id vendor_device(cl_device_id parasol_device);

// A user event of ctx (owned).
struct UserEvent {
  cl_event e = nullptr;
  explicit UserEvent(cl_context ctx);
  ~UserEvent();  // completes the event first if nobody did, so nothing stays gated
  void set(cl_int status);
  operator cl_event() const { return e; }
  cl_event* ptr() { return &e; }
  bool set_once = false;
};

// An OpenCL C comment line no earlier run wrote (process id and clock): a
// program source starting with it has a kernel whose performance model
// starts empty (the models are keyed by a hash of the source).
std::string fresh_source_tag();

std::string build_log(cl_program p, cl_device_id d);
// A program built for its whole context that may fail on some devices:
// returns clBuildProgram's answer.
cl_program build_program(cl_context ctx, const std::string& source, cl_int& build_err,
                         const std::string& options = "");

}  // namespace parasol_test
