// A kernel: one vendor kernel per device its program was built for, and the
// argument values set so far. Enqueueing copies the arguments, so changing an
// argument afterwards never changes an enqueued command.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "backend/kernel_signature.h"
#include "backend/vendor_arg_values.h"
#include "backend/vendor_handle.h"
#include "core/buffer.h"
#include "core/kernel_args.h"
#include "core/program.h"
#include "core/sampler.h"

namespace parasol::schedulers {
class SoclFactorChoice;
}  // namespace parasol::schedulers

namespace parasol::core {

// A value argument's bytes. Every launch copies its kernel's arguments, so
// the usual ones (scalars, vectors up to 32 bytes) live inline; larger ones
// on the heap. 16-byte aligned either way, as malloc's memory is: the
// native device's work-group functions read them in place.
class ArgBytes {
 public:
  void assign(const std::byte* first, const std::byte* last) {
    size_ = static_cast<std::size_t>(last - first);
    if (size_ <= kInline) {
      heap_.clear();
      std::copy(first, last, inline_.begin());
    } else {
      heap_.assign(first, last);
    }
  }
  const std::byte* data() const { return size_ <= kInline ? inline_.data() : heap_.data(); }
  std::size_t size() const { return size_; }

 private:
  static constexpr std::size_t kInline = 32;
  alignas(16) std::array<std::byte, kInline> inline_{};
  std::vector<std::byte> heap_;
  std::size_t size_ = 0;
};

struct KernelArg {
  enum class Kind { Unset, Value, Buffer, Local, Image, Sampler };
  Kind kind = Kind::Unset;
  ArgBytes bytes;                // Value
  ArgBuffer buffer;              // Buffer (null: a null cl_mem), Image
  std::size_t local_size = 0;    // Local
  Ref<Sampler> sampler;          // Sampler
};

// The bytes a launch's __local arguments take.
inline std::size_t local_arg_bytes(std::span<const KernelArg> args) {
  std::size_t bytes = 0;
  for (const KernelArg& a : args)
    if (a.kind == KernelArg::Kind::Local) bytes += a.local_size;
  return bytes;
}

// Parasol's divide function (clSetKernelDivideFunctionPARASOL): a host
// function that runs a kernel as several smaller commands, on context
// queues, with a factor from [min_factor, max_factor] or the kernel itself
// (granularity adaptation, schedulers/divide_strategy.h).
struct DivideFunction {
  using Fn = cl_int(CL_CALLBACK*)(cl_command_queue, cl_uint, const cl_event, cl_event*, void*);
  Fn fn = nullptr;
  cl_uint min_factor = 1, max_factor = 1;
  void* user_data = nullptr;

  bool set() const { return fn != nullptr; }
  cl_int call(cl_command_queue q, cl_uint factor, cl_event before, cl_event* after) const {
    return fn(q, factor, before, after, user_data);
  }
};

// SOCL's divide function (runtime/divided_launch.h), set part by part
// through clSetKernelArg's indexes -1 (fn), -2 (the partition space: a new
// factor choice) and -3 (data). The choice is made by the scheduler on the
// first division after the space was set (Kernel::socl_choice).
struct SoclDivideFunction {
  using Fn = cl_int(CL_CALLBACK*)(cl_command_queue, cl_uint, void*, const cl_event, cl_event*);
  Fn fn = nullptr;
  void* data = nullptr;
  cl_uint space = 0;
  std::shared_ptr<schedulers::SoclFactorChoice> choice;
};

class Kernel final : public Object<Kernel, _cl_kernel, ObjectKind::Kernel> {
 public:
  // Creates the vendor kernels; err is CL_INVALID_KERNEL_NAME when no device
  // has it, CL_INVALID_PROGRAM_EXECUTABLE when no device was built.
  Kernel(Program* program, std::string name, cl_int& err);
  ~Kernel();
  // clCloneKernel: a kernel of the same program with the same arguments (a
  // buffer argument held weakly, as the original holds it) and divide
  // functions. Null with err on failure.
  Kernel* clone(cl_int& err) const;

  Program* program() const { return program_.get(); }
  const std::string& name() const { return name_; }
  // Names this kernel's performance model: its name plus a hash of its
  // program's source, so same-named kernels of different programs differ.
  const std::string& model_symbol() const { return model_symbol_; }
  cl_uint num_args() const { return static_cast<cl_uint>(arg_info_.size()); }
  const std::vector<backend::KernelArgInfo>& arg_info() const { return arg_info_; }
  // The vendor kernel for a device, null where the program is not built.
  cl_kernel vendor_for(const Device* d) const { return vendor_launch(d).kernel; }
  // That kernel with what its arguments were last set to (values: used
  // under launch_mutex()); both null where the program is not built.
  struct VendorLaunch {
    cl_kernel kernel;
    backend::VendorArgValues* values;
  };
  VendorLaunch vendor_launch(const Device* d) const;
  cl_kernel any_vendor() const;
  // The native device's kernel, null where the program is not built for it.
  const backend::native::NativeKernel* native_for(const Device* d) const;
  const backend::native::NativeKernel* native_any() const;
  // The kernel made on another rank's device's node, null where there is none.
  const backend::RemoteObject* remote_for(const Device* d) const;
  bool runs_on(const Device* d) const { return vendor_for(d) || native_for(d) || remote_for(d); }

  // What the kernel reads and writes per block of work-groups (its
  // program's analysis, Program::access_ranges()), asked for by the first
  // launch that could be split and kept; null when there is none. The log
  // says once, at info, whether and along which dimensions the kernel's
  // code lets a launch be split, or why not.
  const backend::native::KernelRanges* access_ranges() const;
  // The dimensions (bit d) its code lets a launch be split along, once
  // access_ranges() was asked (0 before, and when none).
  unsigned split_dims() const { return split_dims_.load(std::memory_order_acquire); }
  // One of its launches came while other commands of its context ran beside
  // it (an application's own blocks): by default its launches no longer
  // split (runtime/split_launch.h).
  void launched_beside_others() { beside_others_.store(true, std::memory_order_relaxed); }
  bool launches_beside_others() const { return beside_others_.load(std::memory_order_relaxed); }

  // Held while a launch sets a vendor kernel's arguments and enqueues it:
  // StarPU's workers and the direct path's threads launch the same kernel.
  std::mutex& launch_mutex() const { return launch_mutex_; }

  // What a launch on device d may ask for (d must run this kernel; queried
  // once, when the kernel is created).
  struct WorkGroupLimits {
    std::size_t max_total = 0;                 // min(device, kernel) work-group size
    std::array<std::size_t, 3> max_items{};    // per dimension
    std::array<std::size_t, 3> reqd{0, 0, 0};  // reqd_work_group_size, or 0,0,0
  };
  WorkGroupLimits work_group_limits(const Device* d) const;
  // CL_KERNEL_LOCAL_MEM_SIZE on device d (d runs this kernel): its __local
  // variables and its __local arguments as set now (an unset one counts 0).
  // CL_SUCCESS, or the vendor's error.
  cl_int local_mem_size(const Device* d, cl_ulong& bytes) const;

  // Asks a vendor whether a by-value argument of that size fits (its
  // clSetKernelArg answer), on a vendor kernel no task uses.
  cl_int check_value(cl_uint index, size_t size, const void* value);
  void set_arg(cl_uint index, KernelArg arg);
  // set_arg() of a buffer argument (b: checked by the caller; null for a
  // null cl_mem), without building a KernelArg: a stream setting a buffer
  // before each launch does it every time.
  void set_buffer_arg(cl_uint index, Buffer* b);

  // The arguments as set now, read in place while the view holds their
  // lock: a launch that goes to its vendor at once (a record) needs no copy
  // of them. Let go of it before anything that may call the application
  // back (a callback may set this kernel's arguments).
  class ArgsView {
   public:
    explicit ArgsView(const Kernel& kernel)
        : lock_(kernel.args_mutex_), args_(&kernel.args_) {}
    // Only while held.
    std::span<const KernelArg> args() const { return *args_; }
    // Whether every argument is set and every buffer argument still held by
    // the application (else the launch is CL_INVALID_KERNEL_ARGS).
    bool complete() const;
    // Once the vendor has what it needs.
    void release() {
      if (lock_.owns_lock()) lock_.unlock();
    }
    // Taken again if let go (a record's launch the vendor refused).
    void hold() {
      if (!lock_.owns_lock()) lock_.lock();
    }
    // A copy for a launch that outlives the call (taken again if let go).
    KernelArgs copy();

   private:
    std::unique_lock<std::mutex> lock_;
    const std::vector<KernelArg>* args_;
  };
  ArgsView args_view() const { return ArgsView(*this); }

  DivideFunction divide_function() const;
  // Whether one is set, without the lock divide_function() takes: asked at
  // every context-queue launch.
  bool has_divide_function() const { return divide_set_.load(std::memory_order_acquire); }
  void set_divide_function(const DivideFunction& d);

  SoclDivideFunction socl_divide_function() const;
  void set_socl_divide_function(SoclDivideFunction::Fn fn);
  void set_socl_divide_space(cl_uint space);
  // The factor choice of the SOCL divide function, made by make(space) if
  // there is none yet.
  using MakeSoclChoice = std::shared_ptr<schedulers::SoclFactorChoice> (*)(cl_uint space);
  std::shared_ptr<schedulers::SoclFactorChoice> socl_choice(MakeSoclChoice make);
  void set_socl_divide_data(void* data);
  // True, once, when a SOCL divide function is set and none of this
  // kernel's launches runs it: the caller runs it, then calls
  // end_socl_division().
  bool try_begin_socl_division() {
    return socl_set_.load(std::memory_order_acquire) &&
           !socl_dividing_.exchange(true, std::memory_order_acq_rel);
  }
  void end_socl_division() { socl_dividing_.store(false, std::memory_order_release); }
  // Whether a SOCL divide function is set (its own launches of the kernel
  // run as they are: never split).
  bool has_socl_divide_function() const { return socl_set_.load(std::memory_order_acquire); }

 private:
  Ref<Program> program_;
  std::string name_;
  std::string model_symbol_;
  struct VendorOf {
    Device* device;
    backend::VendorKernel kernel;
    mutable backend::VendorArgValues set_values;
  };
  std::vector<VendorOf> vendor_;
  std::vector<std::pair<Device*, std::shared_ptr<backend::native::NativeKernel>>> native_;
  std::vector<std::pair<Device*, std::shared_ptr<backend::RemoteObject>>> remote_;
  std::vector<std::pair<const Device*, WorkGroupLimits>> limits_;
  backend::VendorKernel validator_;
  cl_platform_id validator_platform_ = nullptr;
  std::vector<backend::KernelArgInfo> arg_info_;
  mutable std::mutex args_mutex_;
  mutable std::mutex launch_mutex_;
  std::vector<KernelArg> args_;
  DivideFunction divide_;
  std::atomic<bool> divide_set_{false};  // divide_.set(), written under args_mutex_
  SoclDivideFunction socl_divide_;         // under args_mutex_
  std::atomic<bool> socl_set_{false};      // socl_divide_.fn, written under args_mutex_
  std::atomic<bool> socl_dividing_{false};
  mutable std::once_flag ranges_once_;
  mutable std::shared_ptr<const backend::native::ProgramRanges> program_ranges_;
  mutable const backend::native::KernelRanges* ranges_ = nullptr;
  mutable std::atomic<unsigned> split_dims_{0};
  std::atomic<bool> beside_others_{false};
};

}  // namespace parasol::core
