// libParasolFaultVendor: an OpenCL ICD that wraps PoCL and injects faults.
//
// Every handle it gives out is a small struct { own dispatch table, PoCL's
// handle }, so the ICD loader sends every call here first. Almost every entry
// point is forwarded mechanically (entry_points.def + the Forward template
// below); the few entry points that carry faults or the vendor's identity are
// written by hand at the end of this file.
//
// Faults come from the control file named by PARASOL_FAULT_CONTROL, read again
// on every call that can inject one (see README.md in this folder).
#include <CL/cl_icd.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

// ---------------------------------------------------------------------------
// Handles: the loader reads the dispatch pointer at offset 0; `vendor` is the
// PoCL handle behind it. A few types carry the state their faults need.

struct _cl_platform_id { const cl_icd_dispatch* dispatch; cl_platform_id vendor; };
struct _cl_device_id { const cl_icd_dispatch* dispatch; cl_device_id vendor; };
struct _cl_context {
  const cl_icd_dispatch* dispatch;
  cl_context vendor;
  // The user's pfn_notify, told about a lost device.
  void(CL_CALLBACK* notify)(const char*, const void*, size_t, void*) = nullptr;
  void* notify_data = nullptr;
};
struct _cl_command_queue {
  const cl_icd_dispatch* dispatch;
  cl_command_queue vendor;
  // A command failed here under exec_fail (sticky_fault() below): the
  // control file's epoch then, high 32 bits, and the status, low 32; 0: none.
  std::atomic<std::uint64_t> sticky{0};
};
struct _cl_mem {
  const cl_icd_dispatch* dispatch;
  cl_mem vendor;
  // Bumped when its PoCL object is destroyed (clReleaseMemObject below) and
  // when a new PoCL object takes this wrapper: a kernel argument set before
  // names a buffer that is gone.
  std::atomic<std::uint64_t> generation{0};
};
struct _cl_program {
  const cl_icd_dispatch* dispatch;
  cl_program vendor;
  std::atomic<bool> build_fault{false};  // the last clBuildProgram was failed on purpose
};
struct _cl_kernel {
  const cl_icd_dispatch* dispatch;
  cl_kernel vendor;
  // The buffer each argument was last set to, with its generation then: a
  // vendor that resolves a buffer argument when it is set would run a
  // launch whose buffer was released since on freed memory; this one
  // refuses such a launch (launch() below).
  std::mutex args_mutex{};
  std::unordered_map<cl_uint, std::pair<cl_mem, std::uint64_t>> buffer_args{};
};
struct _cl_event {
  const cl_icd_dispatch* dispatch;
  cl_event vendor;
  std::atomic<cl_int> exec_fault{0};  // negative: the status this event ends with
};
struct _cl_sampler { const cl_icd_dispatch* dispatch; cl_sampler vendor; };

namespace fv {
namespace {

constexpr const char* kPlatformName = "Parasol Fault Vendor";
constexpr const char* kDeviceName = "Fault Device";
constexpr const char* kVendorLibrary = "libpocl.so.2";
constexpr const char* kBuildLog = "fault vendor: injected build failure";

const cl_icd_dispatch* own_dispatch();

template <typename T>
inline constexpr bool is_handle_v =
    std::is_same_v<T, cl_platform_id> || std::is_same_v<T, cl_device_id> ||
    std::is_same_v<T, cl_context> || std::is_same_v<T, cl_command_queue> ||
    std::is_same_v<T, cl_mem> || std::is_same_v<T, cl_program> || std::is_same_v<T, cl_kernel> ||
    std::is_same_v<T, cl_event> || std::is_same_v<T, cl_sampler>;

// One wrapper per PoCL handle, for the life of the process: the same PoCL
// object always comes back as the same wrapper (CL_QUEUE_CONTEXT must equal
// the user's context), and a wrapper stays valid memory even after a dangling
// use. When PoCL reuses an address for a new object, the wrapper is reused too
// (adopt() resets its fault state).
template <typename H>
struct Registry {
  std::mutex mutex;
  std::unordered_map<H, H> by_vendor;
  std::unordered_set<H> wrappers;
  // Buffers only: wrappers whose PoCL object the last release destroyed,
  // handed to the next buffers made (newest first), as vendors reuse a
  // freed object's address: a caller keeping a released buffer's handle
  // then holds a new buffer's (clReleaseMemObject below).
  std::vector<H> released;
};
template <typename H>
Registry<H>& registry() {
  static auto* r = new Registry<H>;  // never destroyed: callbacks may run at exit
  return *r;
}

inline void reset_state(cl_event e) { e->exec_fault = 0; }
inline void reset_state(cl_command_queue q) { q->sticky = 0; }
inline void reset_state(cl_program p) { p->build_fault = false; }
inline void reset_state(cl_context c) { c->notify = nullptr; c->notify_data = nullptr; }
inline void reset_state(cl_mem m) { m->generation.fetch_add(1); }
inline void reset_state(cl_kernel k) {
  std::lock_guard lock(k->args_mutex);
  k->buffer_args.clear();
}
template <typename H>
void reset_state(H) {}

// wrap: a PoCL handle seen again (info query, callback). adopt: one PoCL just
// created, so any state of an older object at that address is dropped.
template <typename H>
H wrap(H vendor, bool fresh = false) {
  if (!vendor) return nullptr;
  auto& r = registry<H>();
  std::lock_guard lock(r.mutex);
  auto [it, inserted] = r.by_vendor.try_emplace(vendor, nullptr);
  if (inserted && fresh && !r.released.empty()) {
    it->second = r.released.back();
    r.released.pop_back();
    it->second->vendor = vendor;
    reset_state(it->second);
  } else if (inserted) {
    it->second = new std::remove_pointer_t<H>{own_dispatch(), vendor};
    r.wrappers.insert(it->second);
  } else if (fresh) {
    reset_state(it->second);
  }
  return it->second;
}
template <typename H>
H adopt(H vendor) { return wrap(vendor, true); }

template <typename H>
H unwrap(H mine) { return mine ? mine->vendor : nullptr; }

template <typename H>
bool is_wrapper(H h) {
  auto& r = registry<H>();
  std::lock_guard lock(r.mutex);
  return r.wrappers.count(h) != 0;
}

// ---------------------------------------------------------------------------
// PoCL, reached through its own ICD entry point and dispatch table.

struct Vendor {
  cl_platform_id platform = nullptr;  // PoCL's
  const cl_icd_dispatch* table = nullptr;
};

const Vendor& vendor() {
  static const Vendor v = [] {
    Vendor out;
    void* lib = dlopen(kVendorLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      std::fprintf(stderr, "fault vendor: cannot load %s: %s\n", kVendorLibrary, dlerror());
      return out;
    }
    using GetAddress = void*(CL_API_CALL*)(const char*);
    auto get_address = reinterpret_cast<GetAddress>(dlsym(lib, "clGetExtensionFunctionAddress"));
    void* icd = get_address ? get_address("clIcdGetPlatformIDsKHR") : nullptr;
    if (!icd) icd = dlsym(lib, "clIcdGetPlatformIDsKHR");
    if (!icd) return out;
    cl_uint n = 0;
    auto get_ids = reinterpret_cast<clIcdGetPlatformIDsKHR_fn>(icd);
    if (get_ids(1, &out.platform, &n) != CL_SUCCESS || n == 0) return Vendor{};
    out.table = *reinterpret_cast<const cl_icd_dispatch* const*>(out.platform);
    return out;
  }();
  return v;
}
const cl_icd_dispatch& pocl() { return *vendor().table; }

// PoCL's first device: the one device of this platform.
cl_device_id vendor_device() {
  static const cl_device_id d = [] {
    cl_device_id dev = nullptr;
    if (vendor().table)
      pocl().clGetDeviceIDs(vendor().platform, CL_DEVICE_TYPE_ALL, 1, &dev, nullptr);
    return dev;
  }();
  return d;
}

// ---------------------------------------------------------------------------
// The control file.

struct Faults {
  bool build_fail = false;
  cl_int enqueue_fail = CL_SUCCESS;
  cl_int exec_fail = CL_SUCCESS;
  bool not_sticky = false;  // exec_fail fails only the commands it hits (as PoCL would)
  long slow_ms = 0;
  bool device_lost = false;
  long global_mem_mb = 0;
  std::string kernel_filter;  // empty: every kernel
  long transfer_bytes = 0;    // > 0: the faults hit transfers of that size, not kernels
  std::string build_options_to;  // a file each clBuildProgram's options are appended to
  std::uint32_t epoch = 0;    // the control file's version these come from
};

// The control file as last read: which file (a FaultScope writes a new one
// and renames it into place), when written, how big; absent: no file.
struct ControlId {
  bool present = false;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  long mtime_s = 0, mtime_ns = 0, ctime_s = 0, ctime_ns = 0;
  bool operator==(const ControlId&) const = default;
};

// The epoch of the control file read as `id`: it moves on whenever a read
// finds another file than the last read did (written anew, or removed), so
// that a new control, or none, ends the sticky failures of the old one.
std::uint32_t control_epoch(const ControlId& id) {
  static std::mutex mutex;
  static ControlId last;
  static std::uint32_t epoch = 1;
  std::lock_guard lock(mutex);
  if (!(id == last)) {
    last = id;
    if (++epoch == 0) epoch = 1;
  }
  return epoch;
}

Faults read_faults() {
  Faults f;
  const char* path = std::getenv("PARASOL_FAULT_CONTROL");
  std::FILE* file = path && *path ? std::fopen(path, "r") : nullptr;
  ControlId id;
  std::string text;
  if (file) {  // the identity and the text of one open file: one version
    struct stat st {};
    if (fstat(fileno(file), &st) == 0) {
      id = {true, st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
            st.st_ctim.tv_sec, st.st_ctim.tv_nsec};
    }
    char buf[512];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, file)) > 0;) text.append(buf, n);
    std::fclose(file);
  }
  f.epoch = control_epoch(id);
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string key;
    if (!(words >> key) || key[0] == '#') continue;
    if (key == "build_fail") f.build_fail = true;
    else if (key == "enqueue_fail") words >> f.enqueue_fail;
    else if (key == "exec_fail") words >> f.exec_fail;
    else if (key == "not_sticky") f.not_sticky = true;
    else if (key == "slow_ms") words >> f.slow_ms;
    else if (key == "device_lost") f.device_lost = true;
    else if (key == "global_mem_mb") words >> f.global_mem_mb;
    else if (key == "kernel_filter") words >> f.kernel_filter;
    else if (key == "transfer_bytes") words >> f.transfer_bytes;
    else if (key == "build_options_to") words >> f.build_options_to;
    else std::fprintf(stderr, "fault vendor: unknown control line '%s'\n", line.c_str());
  }
  return f;
}

// ---------------------------------------------------------------------------
// The generic forwarder.

// Arguments that need a conversion keep their converted copy here for the
// duration of the call.
template <typename T>
struct Scratch {};
template <typename H>
  requires is_handle_v<H>
struct Scratch<const H*> { std::vector<H> list; };  // handle list in
template <typename H>
  requires is_handle_v<H>
struct Scratch<H*> { std::vector<H> list; };  // handles out
template <>
struct Scratch<const cl_context_properties*> { std::vector<cl_context_properties> list; };
template <>
struct Scratch<const cl_image_desc*> { cl_image_desc desc; };

template <typename T>
inline constexpr bool is_handle_in_v = false;
template <typename H>
inline constexpr bool is_handle_in_v<const H*> = is_handle_v<H>;
template <typename T>
inline constexpr bool is_handle_out_v = false;
template <typename H>
inline constexpr bool is_handle_out_v<H*> = is_handle_v<H>;

// A callback whose first argument is a handle (event, build, destructor
// callbacks) runs through a trampoline that hands the user their wrapper back;
// the user's function and data travel in a Hook passed as the user_data.
struct Hook {
  void* fn;
  void* user_data;
};

template <typename F>
struct Callback : std::false_type {};
template <typename H, typename... Rest>
  requires is_handle_v<H>
struct Callback<void(CL_CALLBACK*)(H, Rest...)> : std::true_type {
  using Fn = void(CL_CALLBACK*)(H, Rest...);
  static void CL_CALLBACK trampoline(H vendor_handle, Rest... rest) {
    auto args = std::forward_as_tuple(rest...);
    constexpr size_t last = sizeof...(Rest) - 1;  // the user_data
    auto* hook = static_cast<Hook*>(std::get<last>(args));
    H mine = wrap(vendor_handle);
    if constexpr (std::is_same_v<H, cl_event>) {
      // An event callback is told the injected status, not PoCL's success.
      cl_int status = std::get<0>(args);
      if (status == CL_COMPLETE && mine->exec_fault < 0) status = mine->exec_fault;
      reinterpret_cast<Fn>(hook->fn)(mine, status, hook->user_data);
    } else {
      [&]<size_t... I>(std::index_sequence<I...>) {
        reinterpret_cast<Fn>(hook->fn)(mine, std::get<I>(args)..., hook->user_data);
      }(std::make_index_sequence<last>{});
    }
    delete hook;  // every such callback fires once
  }
};

// The answer of a slot PoCL leaves empty.
template <typename R, typename... A>
R no_such_function(A... args) {
  if constexpr (sizeof...(A) > 0 && !std::is_same_v<R, cl_int>) {
    using Last = std::tuple_element_t<sizeof...(A) - 1, std::tuple<A...>>;
    if constexpr (std::is_same_v<Last, cl_int*>)
      if (Last err = std::get<sizeof...(A) - 1>(std::tie(args...))) *err = CL_INVALID_OPERATION;
  }
  if constexpr (std::is_same_v<R, cl_int>) return CL_INVALID_OPERATION;
  else if constexpr (!std::is_void_v<R>) return R{};
}

void fix_info(cl_uint param, void* value, size_t size);

// ---------------------------------------------------------------------------
// Sticky execution failures. On NVIDIA an execution error is CUDA's sticky
// error: every later command, marker and barrier of the context fails with
// it, and Parasol relies on that to prove commands enqueued without an event
// done by a later event (runtime/direct_launch.cpp, may_go_without_event).
// So here too: once a command failed under exec_fail on a queue (with or
// without an event), every later event of that queue ends with its status,
// until the control file changes (a new control, or none).

std::uint64_t sticky_value(const Faults& f) {
  return std::uint64_t{f.epoch} << 32 | static_cast<std::uint32_t>(f.exec_fail);
}

// The status later events of the queue end with: negative while a command
// failed there under the control file still in place, else 0.
cl_int sticky_fault(cl_command_queue queue) {
  std::uint64_t s = queue->sticky;
  if (s == 0) return 0;  // the common case: no control file read
  if (static_cast<std::uint32_t>(s >> 32) != read_faults().epoch) {
    queue->sticky.compare_exchange_strong(s, 0);  // let the next one skip the read
    return 0;
  }
  return static_cast<cl_int>(static_cast<std::uint32_t>(s));
}

// After a command was enqueued on a queue (every clEnqueue*, forwarded or
// not, goes through Forward::call): its event, if any, ends with the queue's
// sticky failure.
void stick(cl_command_queue queue, cl_event* event) {
  if (!queue || !event || !*event) return;
  if (cl_int status = sticky_fault(queue); status < 0) (*event)->exec_fault = status;
}

template <typename Fn, Fn cl_icd_dispatch::*Slot>
struct Forward;

template <typename R, typename... A, R(CL_API_CALL* cl_icd_dispatch::*Slot)(A...)>
struct Forward<R(CL_API_CALL*)(A...), Slot> {
  using Args = std::tuple<A...>;
  static constexpr size_t N = sizeof...(A);
  template <size_t I>
  using At = std::tuple_element_t<I, Args>;
  template <size_t I>
  static constexpr bool after_count = I > 0 && std::is_same_v<At<I - (I > 0)>, cl_uint>;
  // clEnqueue*: (cl_command_queue, ..., cl_event* event), returning cl_int.
  static constexpr bool is_enqueue = [] {
    if constexpr (N >= 2 && std::is_same_v<R, cl_int>)
      return std::is_same_v<At<0>, cl_command_queue> && std::is_same_v<At<N - 1>, cl_event*>;
    else
      return false;
  }();
  // clGet*Info: (..., cl_uint param_name, size_t size, void* value, size_t* size_ret).
  static constexpr bool is_info = [] {
    if constexpr (N >= 4)
      return std::is_same_v<At<N - 4>, cl_uint> && std::is_same_v<At<N - 3>, size_t> &&
             std::is_same_v<At<N - 2>, void*> && std::is_same_v<At<N - 1>, size_t*>;
    else
      return false;
  }();

  struct Frame {
    Args user;
    std::tuple<Scratch<A>...> scratch{};
    size_t info_size = 0;

    // The argument PoCL gets in place of the user's argument I.
    template <size_t I>
    At<I> in() {
      using T = At<I>;
      T v = std::get<I>(user);
      auto& s = std::get<I>(scratch);
      if constexpr (is_handle_v<T>) {
        return unwrap(v);
      } else if constexpr (is_handle_in_v<T>) {
        static_assert(after_count<I>, "a handle list without a count before it: write it by hand");
        if (!v) return v;
        for (cl_uint i = 0; i < std::get<I - 1>(user); ++i) s.list.push_back(unwrap(v[i]));
        return s.list.data();
      } else if constexpr (is_handle_out_v<T>) {
        if (!v) return v;
        size_t n = 1;  // a single handle out (the event of an enqueue)...
        if constexpr (after_count<I>) n = std::get<I - 1>(user);  // ...or a list
        s.list.assign(n, nullptr);
        return s.list.data();
      } else if constexpr (std::is_same_v<T, const cl_context_properties*>) {
        if (!v) return v;
        for (const cl_context_properties* p = v; *p; p += 2) {
          s.list.push_back(p[0]);
          s.list.push_back(p[0] == CL_CONTEXT_PLATFORM
                               ? reinterpret_cast<cl_context_properties>(
                                     unwrap(reinterpret_cast<cl_platform_id>(p[1])))
                               : p[1]);
        }
        s.list.push_back(0);
        return s.list.data();
      } else if constexpr (std::is_same_v<T, const cl_image_desc*>) {
        if (!v) return v;
        s.desc = *v;
        s.desc.mem_object = unwrap(v->mem_object);
        return &s.desc;
      } else if constexpr (Callback<T>::value) {
        return v ? &Callback<T>::trampoline : v;
      } else if constexpr (I > 0 && Callback<At<I - (I > 0)>>::value) {
        static_assert(std::is_same_v<T, void*>, "a callback not followed by its user_data");
        auto fn = std::get<I - 1>(user);
        return fn ? static_cast<void*>(new Hook{reinterpret_cast<void*>(fn), v}) : v;
      } else if constexpr (is_info && I == N - 1) {
        return v ? v : &info_size;  // fix_info needs the size PoCL wrote
      } else {
        return v;
      }
    }

    // Wraps what PoCL wrote into the user's out argument I.
    template <size_t I>
    void out() {
      if constexpr (is_handle_out_v<At<I>>) {
        auto v = std::get<I>(user);
        auto& s = std::get<I>(scratch);
        for (size_t i = 0; v && i < s.list.size(); ++i)
          if (s.list[i]) v[i] = adopt(s.list[i]);
      }
    }
  };

  static R CL_API_CALL call(A... args) {
    auto fn = vendor().table ? pocl().*Slot : nullptr;
    if (!fn) return no_such_function<R>(args...);
    Frame f{Args{args...}};
    auto all = std::make_index_sequence<N>{};
    auto run = [&]<size_t... I>(std::index_sequence<I...>) { return fn(f.template in<I>()...); };
    auto outs = [&]<size_t... I>(std::index_sequence<I...>) { (f.template out<I>(), ...); };
    if constexpr (std::is_void_v<R>) {
      run(all);
      outs(all);
    } else {
      R r = run(all);
      outs(all);
      if constexpr (is_enqueue) {
        if (r == CL_SUCCESS) stick(std::get<0>(f.user), std::get<N - 1>(f.user));
      }
      if constexpr (is_info) {
        if (r == CL_SUCCESS) {
          size_t* size = std::get<N - 1>(f.user);
          fix_info(std::get<N - 4>(f.user), std::get<N - 2>(f.user), size ? *size : f.info_size);
        }
      }
      if constexpr (is_handle_v<R>) return adopt(r);
      else return r;
    }
  }
};

#define FORWARD(name) Forward<cl_api_##name, &cl_icd_dispatch::name>::call

// Info queries whose answer is a handle (or a list of them), and what kind.
#define FV_HANDLE_INFOS(X)                                                               \
  X(CL_DEVICE_PLATFORM, cl_platform_id) X(CL_DEVICE_PARENT_DEVICE, cl_device_id)         \
  X(CL_CONTEXT_DEVICES, cl_device_id) X(CL_QUEUE_CONTEXT, cl_context)                    \
  X(CL_QUEUE_DEVICE, cl_device_id) X(CL_QUEUE_DEVICE_DEFAULT, cl_command_queue)          \
  X(CL_MEM_CONTEXT, cl_context) X(CL_MEM_ASSOCIATED_MEMOBJECT, cl_mem)                   \
  X(CL_IMAGE_BUFFER, cl_mem) X(CL_SAMPLER_CONTEXT, cl_context)                           \
  X(CL_PROGRAM_CONTEXT, cl_context) X(CL_PROGRAM_DEVICES, cl_device_id)                  \
  X(CL_KERNEL_CONTEXT, cl_context) X(CL_KERNEL_PROGRAM, cl_program)                      \
  X(CL_EVENT_COMMAND_QUEUE, cl_command_queue) X(CL_EVENT_CONTEXT, cl_context)

template <typename H>
void wrap_all(void* value, size_t size) {
  auto* list = static_cast<H*>(value);
  for (size_t i = 0; i < size / sizeof(H); ++i) list[i] = wrap(list[i]);
}

void fix_info(cl_uint param, void* value, size_t size) {
  if (!value) return;
  switch (param) {
#define FV_CASE(param, type) \
  case param:                \
    return wrap_all<type>(value, size);
    FV_HANDLE_INFOS(FV_CASE)
#undef FV_CASE
    case CL_CONTEXT_PROPERTIES: {
      auto* p = static_cast<cl_context_properties*>(value);
      for (size_t i = 0; i + 1 < size / sizeof *p && p[i]; i += 2)
        if (p[i] == CL_CONTEXT_PLATFORM)
          p[i + 1] = reinterpret_cast<cl_context_properties>(
              wrap(reinterpret_cast<cl_platform_id>(p[i + 1])));
      return;
    }
    default:
      return;
  }
}

// Writes a clGet*Info answer.
cl_int answer(size_t size, void* value, size_t* size_ret, const void* data, size_t n) {
  if (value && size < n) return CL_INVALID_VALUE;
  if (value) std::memcpy(value, data, n);
  if (size_ret) *size_ret = n;
  return CL_SUCCESS;
}
template <typename T>
cl_int answer(size_t size, void* value, size_t* size_ret, T v) {
  return answer(size, value, size_ret, &v, sizeof v);
}
cl_int answer(size_t size, void* value, size_t* size_ret, const char* s) {
  return answer(size, value, size_ret, s, std::strlen(s) + 1);
}

// ---------------------------------------------------------------------------
// Hand-written entry points.

cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms,
                                    cl_uint* num_platforms) {
  if ((num_entries == 0 && platforms) || (!platforms && !num_platforms)) return CL_INVALID_VALUE;
  if (!vendor().table) {
    if (num_platforms) *num_platforms = 0;
    return CL_PLATFORM_NOT_FOUND_KHR;
  }
  if (platforms) platforms[0] = wrap(vendor().platform);
  if (num_platforms) *num_platforms = 1;
  return CL_SUCCESS;
}

cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform, cl_platform_info param,
                                     size_t size, void* value, size_t* size_ret) {
  if (param == CL_PLATFORM_NAME) {
    // Fixed at load, so that the platform keeps one name.
    static const std::string name = [] {
      const char* posed = std::getenv("PARASOL_FAULT_PLATFORM_NAME");
      return std::string(posed && *posed ? posed : kPlatformName);
    }();
    return answer(size, value, size_ret, name.c_str());
  }
  if (param == CL_PLATFORM_ICD_SUFFIX_KHR) return answer(size, value, size_ret, "Fault");
  return FORWARD(clGetPlatformInfo)(platform, param, size, value, size_ret);
}

cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform, cl_device_type type,
                                  cl_uint num_entries, cl_device_id* devices,
                                  cl_uint* num_devices) {
  if (!platform || platform != wrap(vendor().platform)) return CL_INVALID_PLATFORM;
  if ((num_entries == 0 && devices) || (!devices && !num_devices)) return CL_INVALID_VALUE;
  bool match = vendor_device() && (type & (CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_DEFAULT));
  if (num_devices) *num_devices = match ? 1 : 0;
  if (!match) return CL_DEVICE_NOT_FOUND;
  if (devices) devices[0] = wrap(vendor_device());
  return CL_SUCCESS;
}

cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device, cl_device_info param, size_t size,
                                   void* value, size_t* size_ret) {
  if (device && unwrap(device) == vendor_device()) {  // sub-devices answer as PoCL's
    switch (param) {
      case CL_DEVICE_NAME:
        return answer(size, value, size_ret, kDeviceName);
      case CL_DEVICE_TYPE:
        return answer(size, value, size_ret, cl_device_type{CL_DEVICE_TYPE_ACCELERATOR});
      case CL_DEVICE_AVAILABLE:
        if (read_faults().device_lost) return answer(size, value, size_ret, cl_bool{CL_FALSE});
        break;
      case CL_DEVICE_GLOBAL_MEM_SIZE:
      case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
        if (long mb = read_faults().global_mem_mb; mb > 0)
          return answer(size, value, size_ret, cl_ulong(mb) << 20);
        break;
      default:
        break;
    }
  }
  return FORWARD(clGetDeviceInfo)(device, param, size, value, size_ret);
}

using ContextNotify = void(CL_CALLBACK*)(const char*, const void*, size_t, void*);

cl_context CL_API_CALL clCreateContext(const cl_context_properties* properties, cl_uint num,
                                       const cl_device_id* devices, ContextNotify notify,
                                       void* user_data, cl_int* errcode_ret) {
  cl_context c = FORWARD(clCreateContext)(properties, num, devices, notify, user_data, errcode_ret);
  if (c) {
    c->notify = notify;
    c->notify_data = user_data;
  }
  return c;
}

cl_context CL_API_CALL clCreateContextFromType(const cl_context_properties* properties,
                                               cl_device_type type, ContextNotify notify,
                                               void* user_data, cl_int* errcode_ret) {
  if (!(type & (CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_DEFAULT)) || !vendor_device()) {
    if (errcode_ret) *errcode_ret = CL_DEVICE_NOT_FOUND;
    return nullptr;
  }
  cl_device_id device = wrap(vendor_device());
  return fv::clCreateContext(properties, 1, &device, notify, user_data, errcode_ret);
}

using BuildNotify = void(CL_CALLBACK*)(cl_program, void*);

cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num, const cl_device_id* devices,
                                  const char* options, BuildNotify notify, void* user_data) {
  if (!program || !is_wrapper(program)) return CL_INVALID_PROGRAM;
  const Faults faults = read_faults();
  if (!faults.build_options_to.empty())
    if (std::FILE* f = std::fopen(faults.build_options_to.c_str(), "a")) {
      std::fprintf(f, "%s\n", options ? options : "");
      std::fclose(f);
    }
  if (faults.build_fail) {
    program->build_fault = true;
    if (notify) notify(program, user_data);
    return CL_BUILD_PROGRAM_FAILURE;
  }
  program->build_fault = false;
  return FORWARD(clBuildProgram)(program, num, devices, options, notify, user_data);
}

cl_int CL_API_CALL clGetProgramBuildInfo(cl_program program, cl_device_id device,
                                         cl_program_build_info param, size_t size, void* value,
                                         size_t* size_ret) {
  if (program && is_wrapper(program) && program->build_fault) {
    if (param == CL_PROGRAM_BUILD_STATUS)
      return answer(size, value, size_ret, cl_build_status{CL_BUILD_ERROR});
    if (param == CL_PROGRAM_BUILD_LOG) return answer(size, value, size_ret, kBuildLog);
  }
  return FORWARD(clGetProgramBuildInfo)(program, device, param, size, value, size_ret);
}

cl_int CL_API_CALL clReleaseMemObject(cl_mem mem) {
  if (!mem || !is_wrapper(mem)) return CL_INVALID_MEM_OBJECT;
  cl_uint refs = 0;
  pocl().clGetMemObjectInfo(mem->vendor, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, nullptr);
  const cl_mem vendor_mem = mem->vendor;
  const cl_int err = pocl().clReleaseMemObject(vendor_mem);
  if (err == CL_SUCCESS && refs == 1) {
    // Gone: its wrapper goes to the next buffer made.
    auto& r = registry<cl_mem>();
    std::lock_guard lock(r.mutex);
    if (auto it = r.by_vendor.find(vendor_mem); it != r.by_vendor.end() && it->second == mem) {
      r.by_vendor.erase(it);
      mem->generation.fetch_add(1);
      r.released.push_back(mem);
    }
  }
  return err;
}

cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size,
                                  const void* value) {
  // A buffer (or sampler) argument is passed by address: unwrap the handle it
  // points to if it is one of ours.
  if (kernel && is_wrapper(kernel)) {
    std::lock_guard lock(kernel->args_mutex);
    kernel->buffer_args.erase(index);
  }
  if (value && size == sizeof(void*)) {
    void* h = nullptr;
    std::memcpy(&h, value, sizeof h);
    if (auto m = static_cast<cl_mem>(h); m && is_wrapper(m)) {
      const cl_int err = FORWARD(clSetKernelArg)(kernel, index, size, &m->vendor);
      if (err == CL_SUCCESS && is_wrapper(kernel)) {
        std::lock_guard lock(kernel->args_mutex);
        kernel->buffer_args[index] = {m, m->generation.load()};
      }
      return err;
    }
    if (auto s = static_cast<cl_sampler>(h); s && is_wrapper(s))
      return FORWARD(clSetKernelArg)(kernel, index, size, &s->vendor);
  }
  return FORWARD(clSetKernelArg)(kernel, index, size, value);
}

cl_int CL_API_CALL clGetEventInfo(cl_event event, cl_event_info param, size_t size, void* value,
                                  size_t* size_ret) {
  cl_int err = FORWARD(clGetEventInfo)(event, param, size, value, size_ret);
  if (err == CL_SUCCESS && param == CL_EVENT_COMMAND_EXECUTION_STATUS && value &&
      event->exec_fault < 0 && *static_cast<cl_int*>(value) == CL_COMPLETE)
    *static_cast<cl_int*>(value) = event->exec_fault;
  return err;
}

cl_int CL_API_CALL clWaitForEvents(cl_uint num, const cl_event* events) {
  cl_int err = FORWARD(clWaitForEvents)(num, events);
  if (err != CL_SUCCESS) return err;
  for (cl_uint i = 0; i < num; ++i)
    if (events[i]->exec_fault < 0) return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  return CL_SUCCESS;
}

std::string kernel_name(cl_kernel k) {
  char name[256] = "";
  pocl().clGetKernelInfo(unwrap(k), CL_KERNEL_FUNCTION_NAME, sizeof name, name, nullptr);
  return name;
}

// Applies the enqueue-time faults to a command they hit; enqueue() forwards it.
// A command failed by exec_fail, with or without an event, makes its queue
// fail every later event too (sticky_fault()).
template <typename Enqueue>
cl_int faulted(const Faults& f, cl_command_queue queue, cl_event* event, Enqueue enqueue) {
  if (f.enqueue_fail != CL_SUCCESS) return f.enqueue_fail;
  if (f.slow_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(f.slow_ms));
  if (f.exec_fail >= 0) return enqueue(event);
  if (f.not_sticky) {
    cl_int err = enqueue(event);
    if (err == CL_SUCCESS && event && *event) (*event)->exec_fault = f.exec_fail;
    return err;
  }
  // Sticky from before the vendor has the command: one another thread
  // enqueues meanwhile may count as later (failed), never as a later one
  // that succeeded.
  std::uint64_t sticky = sticky_value(f);
  std::uint64_t before = queue->sticky.exchange(sticky);
  cl_int err = enqueue(event);
  if (err != CL_SUCCESS) queue->sticky.compare_exchange_strong(sticky, before);
  else if (event && *event) (*event)->exec_fault = f.exec_fail;
  return err;
}

// A kernel launch, with the faults of the control file. enqueue() forwards it.
template <typename Enqueue>
cl_int launch(cl_command_queue queue, cl_kernel kernel, cl_event* event, Enqueue enqueue) {
  Faults f = read_faults();
  if (!queue || !is_wrapper(queue)) return CL_INVALID_COMMAND_QUEUE;
  if (!kernel || !is_wrapper(kernel)) return CL_INVALID_KERNEL;
  {
    std::lock_guard lock(kernel->args_mutex);
    for (const auto& [index, set] : kernel->buffer_args)
      if (set.first->generation.load() != set.second) {
        std::fprintf(stderr,
                     "fault vendor: kernel argument %u names a buffer released since it was "
                     "set (a vendor resolving arguments when set would use freed memory)\n",
                     index);
        return CL_INVALID_KERNEL_ARGS;
      }
  }
  if (f.device_lost) {
    // The device is gone: every launch fails, and the context hears of it.
    cl_context ctx = nullptr;
    pocl().clGetCommandQueueInfo(unwrap(queue), CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr);
    if (cl_context mine = wrap(ctx); mine && mine->notify)
      mine->notify("fault vendor: device lost (injected)", nullptr, 0, mine->notify_data);
    return CL_OUT_OF_RESOURCES;
  }
  bool hit = f.transfer_bytes <= 0 &&
             (f.kernel_filter.empty() || f.kernel_filter == kernel_name(kernel));
  return hit ? faulted(f, queue, event, enqueue) : enqueue(event);
}

// A buffer transfer, with the faults of the control file when transfer_bytes
// names its size. StarPU moves whole buffers through these same calls, so a
// size no buffer has hits only the partial reads, writes and copies an
// application makes (which Parasol's direct path sends here).
template <typename Enqueue>
cl_int transfer(cl_command_queue queue, size_t bytes, cl_event* event, Enqueue enqueue) {
  if (!queue || !is_wrapper(queue)) return CL_INVALID_COMMAND_QUEUE;
  Faults f = read_faults();
  bool hit = f.transfer_bytes > 0 && static_cast<size_t>(f.transfer_bytes) == bytes;
  return hit ? faulted(f, queue, event, enqueue) : enqueue(event);
}

cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue queue, cl_mem mem, cl_bool blocking,
                                       size_t offset, size_t size, void* ptr, cl_uint num_wait,
                                       const cl_event* wait_list, cl_event* event) {
  return transfer(queue, size, event, [&](cl_event* e) {
    return FORWARD(clEnqueueReadBuffer)(queue, mem, blocking, offset, size, ptr, num_wait,
                                        wait_list, e);
  });
}

cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue queue, cl_mem mem, cl_bool blocking,
                                        size_t offset, size_t size, const void* ptr,
                                        cl_uint num_wait, const cl_event* wait_list,
                                        cl_event* event) {
  return transfer(queue, size, event, [&](cl_event* e) {
    return FORWARD(clEnqueueWriteBuffer)(queue, mem, blocking, offset, size, ptr, num_wait,
                                         wait_list, e);
  });
}

cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst,
                                       size_t src_offset, size_t dst_offset, size_t size,
                                       cl_uint num_wait, const cl_event* wait_list,
                                       cl_event* event) {
  return transfer(queue, size, event, [&](cl_event* e) {
    return FORWARD(clEnqueueCopyBuffer)(queue, src, dst, src_offset, dst_offset, size, num_wait,
                                        wait_list, e);
  });
}

cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dim,
                                          const size_t* offset, const size_t* global,
                                          const size_t* local, cl_uint num_wait,
                                          const cl_event* wait_list, cl_event* event) {
  return launch(queue, kernel, event, [&](cl_event* e) {
    return FORWARD(clEnqueueNDRangeKernel)(queue, kernel, dim, offset, global, local, num_wait,
                                           wait_list, e);
  });
}

cl_int CL_API_CALL clEnqueueTask(cl_command_queue queue, cl_kernel kernel, cl_uint num_wait,
                                 const cl_event* wait_list, cl_event* event) {
  return launch(queue, kernel, event, [&](cl_event* e) {
    return FORWARD(clEnqueueTask)(queue, kernel, num_wait, wait_list, e);
  });
}

void* CL_API_CALL clGetExtensionFunctionAddress(const char* name) {
  if (!name) return nullptr;
  if (!std::strcmp(name, "clIcdGetPlatformIDsKHR"))
    return reinterpret_cast<void*>(&clGetPlatformIDs);
  // ocl-icd looks this one up too, to check the platform's cl_khr_icd.
  if (!std::strcmp(name, "clGetPlatformInfo")) return reinterpret_cast<void*>(&clGetPlatformInfo);
  return nullptr;  // PoCL's extensions would take PoCL handles: none offered
}

void* CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id, const char* name) {
  return fv::clGetExtensionFunctionAddress(name);
}

// ---------------------------------------------------------------------------
// The dispatch table.

cl_int CL_API_CALL windows_only_entry() { return CL_INVALID_OPERATION; }

template <typename Fn, Fn cl_icd_dispatch::*Slot>
Fn forward_slot() {
  if constexpr (std::is_same_v<Fn, void*>)  // D3D/DX9 slots, typed void* on Linux
    return reinterpret_cast<void*>(&windows_only_entry);
  else
    return &Forward<Fn, Slot>::call;
}

const cl_icd_dispatch* own_dispatch() {
  static const cl_icd_dispatch table = [] {
    cl_icd_dispatch t{};
#define FV_FORWARD(name) t.name = forward_slot<cl_api_##name, &cl_icd_dispatch::name>();
#define FV_OWN(name) t.name = &fv::name;
#include "entry_points.def"
#undef FV_FORWARD
#undef FV_OWN
    return t;
  }();
  return &table;
}

}  // namespace
}  // namespace fv

// The library's only exports: what an ICD loader looks up.
extern "C" __attribute__((visibility("default"))) cl_int CL_API_CALL
clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id* platforms, cl_uint* num_platforms) {
  return fv::clGetPlatformIDs(num_entries, platforms, num_platforms);
}

extern "C" __attribute__((visibility("default"))) void* CL_API_CALL
clGetExtensionFunctionAddress(const char* name) {
  return fv::clGetExtensionFunctionAddress(name);
}
