#include "core/kernel.h"

#include "util/log.h"
#include "util/small_vector.h"

#include <algorithm>
#include <cstdio>
#include <functional>

namespace parasol::core {
namespace {

Kernel::WorkGroupLimits vendor_limits(const Device* d, cl_kernel k) {
  Kernel::WorkGroupLimits l;
  backend::VendorLock lock = backend::lock_vendor(d->worker());
  std::size_t device_max = 0, kernel_max = 0;
  clGetDeviceInfo(d->vendor(), CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof device_max, &device_max, nullptr);
  clGetDeviceInfo(d->vendor(), CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof l.max_items, l.max_items.data(),
                  nullptr);
  clGetKernelWorkGroupInfo(k, d->vendor(), CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max, &kernel_max,
                           nullptr);
  clGetKernelWorkGroupInfo(k, d->vendor(), CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof l.reqd,
                           l.reqd.data(), nullptr);
  l.max_total = kernel_max ? std::min(device_max, kernel_max) : device_max;
  return l;
}

Kernel::WorkGroupLimits native_limits(const backend::native::NativeKernel& k) {
  Kernel::WorkGroupLimits l;
  l.max_total = backend::native::max_work_group_size();
  l.max_items = {l.max_total, l.max_total, l.max_total};
  l.reqd = backend::native::reqd_work_group_size(k);
  return l;
}

// A kernel on another rank's device: its node's vendor's answers.
Kernel::WorkGroupLimits remote_limits(const Device* d, const backend::RemoteKernelInfo& info) {
  Kernel::WorkGroupLimits l;
  std::size_t device_max = 0;
  InfoOut size_out(sizeof device_max, &device_max, nullptr);
  d->backend().info(CL_DEVICE_MAX_WORK_GROUP_SIZE, size_out, nullptr);
  InfoOut items_out(sizeof l.max_items, l.max_items.data(), nullptr);
  d->backend().info(CL_DEVICE_MAX_WORK_ITEM_SIZES, items_out, nullptr);
  l.max_total = info.work_group_size ? std::min(device_max, info.work_group_size) : device_max;
  l.reqd = info.reqd;
  return l;
}

// The vendor's answer, for a program Parasol's front end did not read (a
// binary, a source it could not parse).
std::vector<backend::KernelArgInfo> vendor_arg_info(const Device* d, cl_kernel k) {
  backend::VendorLock lock = backend::lock_vendor(d->worker());
  return backend::read_arg_info(k);
}

}  // namespace

const backend::native::KernelRanges* Kernel::access_ranges() const {
  std::call_once(ranges_once_, [this] {
    std::string why;
    program_ranges_ = program_->access_ranges(why);
    if (program_ranges_) ranges_ = backend::native::kernel_ranges(*program_ranges_, name_);
    if (!ranges_) {
      log::info("kernel ", name_, " is not splittable: ",
                why.empty() ? "the analysis does not know it" : why);
      return;
    }
    const backend::native::SplitAbility able = backend::native::split_ability(*ranges_);
    split_dims_.store(able.dims, std::memory_order_release);
    std::string dims;
    for (unsigned d = 0; d < 3; ++d)
      if (able.dims & (1u << d)) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    if (dims.empty())
      log::info("kernel ", name_, " is not splittable: ", able.why_not[0]);
    else
      log::info("kernel ", name_, " is splittable along dimension ", dims,
                " (each launch still checks that its blocks write apart)");
    log::debug("access ranges of ", backend::native::describe(*ranges_));
  });
  return ranges_;
}

Kernel::Kernel(Program* program, std::string name, cl_int& err)
    : program_(program), name_(std::move(name)) {
  char hash[24];
  std::snprintf(hash, sizeof hash, "%016zx", program->source_hash());
  model_symbol_ = "parasol." + name_ + "." + hash;
  cl_int failure = CL_INVALID_PROGRAM_EXECUTABLE;
  for (auto& b : program->builds()) {
    if (!b.executable()) continue;
    cl_int e = CL_SUCCESS;
    backend::DeviceKernel k = b.device->backend().kernel(b.program, name_, e);
    if (e != CL_SUCCESS) {
      log::info("kernel ", name_, " not created on ", b.device->name(), " (error ", e, ")");
      failure = e;
      continue;
    }
    if (k.native) {
      native_.emplace_back(b.device, std::move(k.native));
      continue;
    }
    if (k.remote) {
      remote_.emplace_back(b.device, std::move(k.remote));
      continue;
    }
    vendor_.push_back({b.device, std::move(k.vendor), {}});
    if (!validator_) {
      validator_ = b.device->backend().kernel(b.program, name_, e).vendor;
      validator_platform_ = b.device->worker().platform;
    }
  }
  err = vendor_.empty() && native_.empty() && remote_.empty() ? failure : CL_SUCCESS;
  if (err != CL_SUCCESS) return;
  program->attached_kernels.fetch_add(1);
  // Fixed once the kernel exists: asked of the vendors once, not per enqueue.
  for (const VendorOf& v : vendor_)
    limits_.emplace_back(v.device, vendor_limits(v.device, v.kernel.get()));
  for (const auto& [d, nk] : native_) limits_.emplace_back(d, native_limits(*nk));
  for (const auto& [d, rk] : remote_) limits_.emplace_back(d, remote_limits(d, rk->info));
  if (const backend::KernelSignature* signature = program->signature(name_)) {
    arg_info_ = signature->args;
  } else if (vendor_.empty() && !native_.empty()) {  // only the native device has it (a binary)
    arg_info_ = backend::native::arg_info(*native_.front().second);
  } else if (vendor_.empty() && !remote_.empty()) {  // another rank's platform read them
    arg_info_ = remote_.front().second->info.args;
  } else if (vendor_.empty()) {
    log::warn("kernel ", name_, ": Parasol's front end could not read its arguments, and no "
              "device of this process has it");
  } else {
    arg_info_ = vendor_arg_info(vendor_.front().device, vendor_.front().kernel.get());
  }
  args_.resize(arg_info_.size());
}

Kernel* Kernel::clone(cl_int& err) const {
  auto* copy = create<Kernel>(program_.get(), name_, err);
  if (err != CL_SUCCESS) {
    copy->release_api();
    return nullptr;
  }
  std::lock_guard lock(args_mutex_);
  for (std::size_t i = 0; i < args_.size(); ++i) {
    const KernelArg& a = args_[i];
    KernelArg& c = copy->args_[i];
    c.kind = a.kind;
    c.bytes = a.bytes;
    c.buffer = ArgBuffer::weak(a.buffer.get());
    c.local_size = a.local_size;
    c.sampler = a.sampler;
  }
  copy->divide_ = divide_;
  copy->divide_set_.store(divide_set_.load());
  copy->socl_divide_ = socl_divide_;
  copy->socl_set_.store(socl_set_.load());
  return copy;
}

Kernel::~Kernel() {
  if (!vendor_.empty() || !native_.empty() || !remote_.empty())
    program_->attached_kernels.fetch_sub(1);
}

const backend::native::NativeKernel* Kernel::native_for(const Device* d) const {
  for (const auto& [dev, k] : native_)
    if (dev == d) return k.get();
  return nullptr;
}

const backend::RemoteObject* Kernel::remote_for(const Device* d) const {
  for (const auto& [dev, k] : remote_)
    if (dev == d) return k.get();
  return nullptr;
}

const backend::native::NativeKernel* Kernel::native_any() const {
  return native_.empty() ? nullptr : native_.front().second.get();
}

Kernel::VendorLaunch Kernel::vendor_launch(const Device* d) const {
  for (const VendorOf& v : vendor_)
    if (v.device == d) return {v.kernel.get(), &v.set_values};
  return {nullptr, nullptr};
}

cl_kernel Kernel::any_vendor() const { return vendor_.empty() ? nullptr : vendor_.front().kernel.get(); }

Kernel::WorkGroupLimits Kernel::work_group_limits(const Device* d) const {
  for (const auto& [dev, l] : limits_)
    if (dev == d) return l;
  return {};
}

cl_int Kernel::local_mem_size(const Device* d, cl_ulong& bytes) const {
  SmallVector<std::pair<cl_uint, std::size_t>, 4> locals;
  {
    std::lock_guard lock(args_mutex_);
    for (cl_uint i = 0; i < args_.size(); ++i)
      if (args_[i].kind == KernelArg::Kind::Local) locals.push_back({i, args_[i].local_size});
  }
  std::size_t args = 0;
  for (const auto& l : locals) args += l.second;
  if (const backend::native::NativeKernel* nk = native_for(d)) {
    bytes = backend::native::local_bytes(*nk, args);
    return CL_SUCCESS;
  }
  if (const backend::RemoteObject* r = remote_for(d)) {  // its node's answer, and the arguments
    bytes = r->info.local_mem + args;
    return CL_SUCCESS;
  }
  const VendorLaunch v = vendor_launch(d);
  if (!v.kernel) {
    bytes = args;
    return CL_SUCCESS;
  }
  // The vendor counts the sizes its kernel was last given, by a launch or
  // by none: it is given those set now.
  backend::VendorLock vendor_lock = backend::lock_vendor(d->worker());
  std::lock_guard launching(launch_mutex_);
  for (const auto& [index, size] : locals)
    if (cl_int err = v.values->set(v.kernel, index, size, nullptr); err != CL_SUCCESS) return err;
  return clGetKernelWorkGroupInfo(v.kernel, d->vendor(), CL_KERNEL_LOCAL_MEM_SIZE, sizeof bytes,
                                  &bytes, nullptr);
}

cl_int Kernel::check_value(cl_uint index, size_t size, const void* value) {
  std::lock_guard lock(args_mutex_);
  if (validator_) {
    backend::VendorLock vendor_lock = backend::lock_vendor(validator_platform_);
    return clSetKernelArg(validator_.get(), index, size, value);
  }
  // Only on other ranks' devices: their nodes' vendors judge it at launch.
  if (native_.empty()) return CL_SUCCESS;
  std::size_t expected = backend::native::value_size(*native_.front().second, index);
  return expected == size ? CL_SUCCESS : CL_INVALID_ARG_SIZE;
}

void Kernel::set_arg(cl_uint index, KernelArg arg) {
  std::lock_guard lock(args_mutex_);
  args_[index] = std::move(arg);
}

void Kernel::set_buffer_arg(cl_uint index, Buffer* b) {
  std::lock_guard lock(args_mutex_);
  KernelArg& a = args_[index];
  if (a.kind != KernelArg::Kind::Buffer) {
    a = KernelArg{};  // nothing of another kind stays
    a.kind = KernelArg::Kind::Buffer;
  } else if (a.buffer.get() == b) {
    return;  // held already: the weak reference keeps its address from being reused
  }
  a.buffer = ArgBuffer::weak(b);
}

bool Kernel::ArgsView::complete() const {
  return std::none_of(args_->begin(), args_->end(), [](const KernelArg& a) {
    return a.kind == KernelArg::Kind::Unset || (a.buffer && !a.buffer.live());
  });
}

KernelArgs Kernel::ArgsView::copy() {
  hold();
  KernelArgs out(args_->begin(), args_->end());
  lock_.unlock();
  return out;
}

DivideFunction Kernel::divide_function() const {
  std::lock_guard lock(args_mutex_);
  return divide_;
}

void Kernel::set_divide_function(const DivideFunction& d) {
  std::lock_guard lock(args_mutex_);
  divide_ = d;
  divide_set_.store(divide_.set(), std::memory_order_release);
}

SoclDivideFunction Kernel::socl_divide_function() const {
  std::lock_guard lock(args_mutex_);
  return socl_divide_;
}

void Kernel::set_socl_divide_function(SoclDivideFunction::Fn fn) {
  std::lock_guard lock(args_mutex_);
  socl_divide_.fn = fn;
  socl_set_.store(fn != nullptr, std::memory_order_release);
}

void Kernel::set_socl_divide_space(cl_uint space) {
  std::lock_guard lock(args_mutex_);
  socl_divide_.space = space;
  socl_divide_.choice.reset();
}

std::shared_ptr<schedulers::SoclFactorChoice> Kernel::socl_choice(MakeSoclChoice make) {
  std::lock_guard lock(args_mutex_);
  if (!socl_divide_.choice) socl_divide_.choice = make(socl_divide_.space);
  return socl_divide_.choice;
}

void Kernel::set_socl_divide_data(void* data) {
  std::lock_guard lock(args_mutex_);
  socl_divide_.data = data;
}

}  // namespace parasol::core
