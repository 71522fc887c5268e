// Kernel entry points: creation, arguments, info, and the launch commands.
#include <algorithm>
#include <array>
#include <cstring>
#include <span>
#include <vector>

#include "backend/native/native_compiler.h"
#include "core/command_queue.h"
#include "core/kernel.h"
#include "icd/api.h"
#include "util/info_out.h"
#include "icd/validate.h"
#include "runtime/divided_launch.h"
#include "runtime/kernel_command.h"
#include "runtime/native_kernel_command.h"
#include "runtime/submit.h"

namespace parasol::icd {
namespace {

using core::Buffer;
using core::CommandQueue;
using core::Device;
using core::Kernel;
using core::KernelArg;
using core::Program;

}  // namespace

cl_kernel CL_API_CALL clCreateKernel(cl_program program, const char* kernel_name,
                                     cl_int* errcode_ret) {
  return produce<cl_kernel>(errcode_ret, [&]() -> Produced<cl_kernel> {
    auto* p = checked<Program>(program);
    PARASOL_REFUSE_IF(!p, CL_INVALID_PROGRAM, "not a live Parasol program");
    PARASOL_REFUSE_IF(!kernel_name, CL_INVALID_VALUE, "kernel_name is null");
    PARASOL_REFUSE_IF(!p->built_anywhere(), CL_INVALID_PROGRAM_EXECUTABLE,
                      "the program is built for no device");
    cl_int err = CL_SUCCESS;
    auto* k = core::create<Kernel>(p, kernel_name, err);
    if (err != CL_SUCCESS) {
      k->release_api();
      return refuse(__func__, err == CL_INVALID_PROGRAM_EXECUTABLE ? err : CL_INVALID_KERNEL_NAME,
                    "no kernel '", kernel_name, "' in the program");
    }
    return k->handle();
  });
}

cl_int CL_API_CALL clCreateKernelsInProgram(cl_program program, cl_uint num_kernels,
                                            cl_kernel* kernels, cl_uint* num_kernels_ret) {
  auto* p = checked<Program>(program);
  PARASOL_REFUSE_IF(!p, CL_INVALID_PROGRAM, "not a live Parasol program");
  PARASOL_REFUSE_IF(!p->built_anywhere(), CL_INVALID_PROGRAM_EXECUTABLE,
                    "the program is built for no device");
  auto names = p->kernel_names();
  PARASOL_REFUSE_IF(kernels && num_kernels < names.size(), CL_INVALID_VALUE,
                    "num_kernels is less than the ", names.size(), " kernels of the program");
  if (kernels) {
    for (size_t i = 0; i < names.size(); ++i) {
      cl_int err = CL_SUCCESS;
      kernels[i] = icd::clCreateKernel(program, names[i].c_str(), &err);
      if (err != CL_SUCCESS) {
        for (size_t j = 0; j < i; ++j) icd::clReleaseKernel(kernels[j]);
        return err;
      }
    }
  }
  if (num_kernels_ret) *num_kernels_ret = static_cast<cl_uint>(names.size());
  return CL_SUCCESS;
}

namespace {

// How an argument is read; where the vendor did not know (a binary built
// without argument information), what the value says, as SOCL reads it: a
// live buffer, image or sampler handle is one, no value a __local size, the
// rest a value.
backend::ArgClass class_of(const backend::KernelArgInfo& info, size_t arg_size, const void* arg_value) {
  const backend::ArgClass c = backend::arg_class(info);
  if (c != backend::ArgClass::Unknown) return c;
  if (!arg_value) return backend::ArgClass::Local;
  if (arg_size == sizeof(cl_mem))
    if (auto* b = checked<Buffer>(*static_cast<const cl_mem*>(arg_value)))
      return b->image() ? backend::ArgClass::Image : backend::ArgClass::Buffer;
  if (arg_size == sizeof(cl_sampler) &&
      checked<core::Sampler>(*static_cast<const cl_sampler*>(arg_value)))
    return backend::ArgClass::Sampler;
  return backend::ArgClass::Value;
}

}  // namespace

cl_kernel CL_API_CALL clCloneKernel(cl_kernel source_kernel, cl_int* errcode_ret) {
  return produce<cl_kernel>(errcode_ret, [&]() -> Produced<cl_kernel> {
    auto* k = checked<Kernel>(source_kernel);
    PARASOL_REFUSE_IF(!k, CL_INVALID_KERNEL, "not a live Parasol kernel");
    cl_int err = CL_SUCCESS;
    Kernel* copy = k->clone(err);
    if (!copy) return refuse(__func__, err, "kernel ", k->name(), " could not be made again");
    return copy->handle();
  });
}

cl_int CL_API_CALL clRetainKernel(cl_kernel kernel) {
  return retain_handle<Kernel>(__func__, kernel, CL_INVALID_KERNEL);
}

cl_int CL_API_CALL clReleaseKernel(cl_kernel kernel) {
  return release_handle<Kernel>(__func__, kernel, CL_INVALID_KERNEL);
}

cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                                  const void* arg_value) {
  auto* k = checked<Kernel>(kernel);
  PARASOL_REFUSE_IF(!k, CL_INVALID_KERNEL, "not a live Parasol kernel");
  // SOCL's divide-function convention (runtime/divided_launch.h), as
  // SOCL 1.3's clSetKernelArg reads it: index -1's arg_value is the
  // function, -2's points to one cl_uint (the partition space), -3's is the
  // user data; arg_size is not read.
  if (arg_index >= static_cast<cl_uint>(-3)) {
    switch (static_cast<int>(arg_index)) {
      case -1:
        k->set_socl_divide_function(
            reinterpret_cast<core::SoclDivideFunction::Fn>(const_cast<void*>(arg_value)));
        return CL_SUCCESS;
      case -2:
        PARASOL_REFUSE_IF(!arg_value, CL_INVALID_ARG_VALUE,
                          "index -2 (the partition space) points to a cl_uint");
        k->set_socl_divide_space(*static_cast<const cl_uint*>(arg_value));
        return CL_SUCCESS;
      default:
        k->set_socl_divide_data(const_cast<void*>(arg_value));
        return CL_SUCCESS;
    }
  }
  PARASOL_REFUSE_IF(arg_index >= k->num_args(), CL_INVALID_ARG_INDEX, "kernel ", k->name(),
                    " has ", k->num_args(), " arguments, not ", arg_index + 1);
  KernelArg arg;
  switch (class_of(k->arg_info()[arg_index], arg_size, arg_value)) {
    case backend::ArgClass::Local:
      PARASOL_REFUSE_IF(arg_value, CL_INVALID_ARG_VALUE, "a __local argument takes a null value");
      PARASOL_REFUSE_IF(arg_size == 0, CL_INVALID_ARG_SIZE, "a __local argument needs a size");
      arg.kind = KernelArg::Kind::Local;
      arg.local_size = arg_size;
      break;
    case backend::ArgClass::Buffer: {
      PARASOL_REFUSE_IF(arg_size != sizeof(cl_mem), CL_INVALID_ARG_SIZE,
                        "a buffer argument's size is sizeof(cl_mem)");
      cl_mem mem = arg_value ? *static_cast<const cl_mem*>(arg_value) : nullptr;
      Buffer* b = nullptr;
      if (mem) {
        b = checked<Buffer>(mem);
        PARASOL_REFUSE_IF(!b || b->image(), CL_INVALID_MEM_OBJECT, "argument ", arg_index,
                          " is not a live Parasol buffer");
        PARASOL_REFUSE_IF(b->context() != k->program()->context(), CL_INVALID_MEM_OBJECT,
                          "argument ", arg_index, " is a buffer of another context");
      }
      k->set_buffer_arg(arg_index, b);
      return CL_SUCCESS;
    }
    case backend::ArgClass::Image: {
      PARASOL_REFUSE_IF(arg_size != sizeof(cl_mem), CL_INVALID_ARG_SIZE,
                        "an image argument's size is sizeof(cl_mem)");
      auto* b = arg_value ? checked<Buffer>(*static_cast<const cl_mem*>(arg_value)) : nullptr;
      PARASOL_REFUSE_IF(!b || !b->image() || b->context() != k->program()->context(),
                        CL_INVALID_MEM_OBJECT, "argument ", arg_index,
                        " is not a live image of the kernel's context");
      const cl_kernel_arg_access_qualifier access = k->arg_info()[arg_index].access;
      PARASOL_REFUSE_IF((access == CL_KERNEL_ARG_ACCESS_READ_ONLY && (b->flags() & CL_MEM_WRITE_ONLY)) ||
                            (access == CL_KERNEL_ARG_ACCESS_WRITE_ONLY && (b->flags() & CL_MEM_READ_ONLY)),
                        CL_INVALID_ARG_VALUE, "argument ", arg_index,
                        ": the image's access flags deny what the kernel does with it");
      arg.kind = KernelArg::Kind::Image;
      arg.buffer = core::ArgBuffer::weak(b);
      break;
    }
    case backend::ArgClass::Sampler: {
      PARASOL_REFUSE_IF(arg_size != sizeof(cl_sampler), CL_INVALID_ARG_SIZE,
                        "a sampler argument's size is sizeof(cl_sampler)");
      auto* sampler =
          arg_value ? checked<core::Sampler>(*static_cast<const cl_sampler*>(arg_value)) : nullptr;
      PARASOL_REFUSE_IF(!sampler || sampler->context() != k->program()->context(),
                        CL_INVALID_SAMPLER, "argument ", arg_index,
                        " is not a live sampler of the kernel's context");
      arg.kind = KernelArg::Kind::Sampler;
      arg.sampler = core::Ref<core::Sampler>(sampler);
      break;
    }
    default: {
      PARASOL_REFUSE_IF(!arg_value, CL_INVALID_ARG_VALUE, "argument ", arg_index,
                        " is passed by value: arg_value is null");
      // No type has size 0; PoCL asserts on a zero-sized struct argument
      // instead of refusing it, so the vendor is never asked.
      PARASOL_REFUSE_IF(arg_size == 0, CL_INVALID_ARG_SIZE, "argument ", arg_index,
                        " is passed by value: arg_size is 0");
      cl_int err = k->check_value(arg_index, arg_size, arg_value);
      PARASOL_REFUSE_IF(err != CL_SUCCESS, err, "the vendor refuses argument ", arg_index,
                        " of ", arg_size, " bytes");
      arg.kind = KernelArg::Kind::Value;
      auto* bytes = static_cast<const std::byte*>(arg_value);
      arg.bytes.assign(bytes, bytes + arg_size);
    }
  }
  k->set_arg(arg_index, std::move(arg));
  return CL_SUCCESS;
}

cl_int CL_API_CALL clGetKernelInfo(cl_kernel kernel, cl_kernel_info param_name,
                                   size_t param_value_size, void* param_value,
                                   size_t* param_value_size_ret) {
  auto* k = checked<Kernel>(kernel);
  PARASOL_REFUSE_IF(!k, CL_INVALID_KERNEL, "not a live Parasol kernel");
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  switch (param_name) {
    case CL_KERNEL_FUNCTION_NAME: return out.string(k->name());
    case CL_KERNEL_NUM_ARGS: return out.scalar(k->num_args());
    case CL_KERNEL_REFERENCE_COUNT: return out.scalar(k->api_ref_count());
    case CL_KERNEL_CONTEXT: return out.scalar(k->program()->context()->handle());
    case CL_KERNEL_PROGRAM: return out.scalar(k->program()->handle());
    case CL_KERNEL_ATTRIBUTES: {
      // A kernel built only for the native device has no vendor kernel to ask.
      if (!k->any_vendor()) return out.string(backend::native::attributes(*k->native_any()));
      size_t size = 0;
      ::clGetKernelInfo(k->any_vendor(), CL_KERNEL_ATTRIBUTES, 0, nullptr, &size);
      std::string attrs(size, '\0');
      if (size) ::clGetKernelInfo(k->any_vendor(), CL_KERNEL_ATTRIBUTES, size, attrs.data(), nullptr);
      return out.string(attrs.c_str());
    }
    default:
      return refuse(__func__, CL_INVALID_VALUE, "unknown param_name 0x", std::hex, param_name);
  }
}

cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                            cl_kernel_work_group_info param_name,
                                            size_t param_value_size, void* param_value,
                                            size_t* param_value_size_ret) {
  auto* k = checked<Kernel>(kernel);
  PARASOL_REFUSE_IF(!k, CL_INVALID_KERNEL, "not a live Parasol kernel");
  const auto& devices = k->program()->context()->devices();
  Device* d = device ? checked<Device>(device) : nullptr;
  PARASOL_REFUSE_IF(!device && devices.size() != 1, CL_INVALID_DEVICE,
                    "device is null and the kernel's context has several devices");
  if (!device) d = devices.front();
  PARASOL_REFUSE_IF(!d || !k->program()->context()->has_device(d), CL_INVALID_DEVICE,
                    "not a device of the kernel's context");
  PARASOL_REFUSE_IF(!k->runs_on(d), CL_INVALID_PROGRAM_EXECUTABLE,
                    "the program is not built for ", d->name());
  PARASOL_REFUSE_IF(param_name == CL_KERNEL_GLOBAL_WORK_SIZE, CL_INVALID_VALUE,
                    "CL_KERNEL_GLOBAL_WORK_SIZE is for custom devices and built-in kernels");
  if (param_name == CL_KERNEL_LOCAL_MEM_SIZE) {
    cl_ulong bytes = 0;
    if (cl_int err = k->local_mem_size(d, bytes); err != CL_SUCCESS) return err;
    return InfoOut(param_value_size, param_value, param_value_size_ret).scalar(bytes);
  }
  if (cl_kernel vk = k->vendor_for(d))
    return ::clGetKernelWorkGroupInfo(vk, d->vendor(), param_name, param_value_size, param_value,
                                      param_value_size_ret);
  // The native device answers for itself; another rank's device, with what
  // its node's vendor said of the kernel when it made it.
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  auto limits = k->work_group_limits(d);
  const backend::native::NativeKernel* nk = k->native_for(d);
  const backend::RemoteObject* rk = k->remote_for(d);
  switch (param_name) {
    case CL_KERNEL_WORK_GROUP_SIZE: return out.scalar(limits.max_total);
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: return out.array(std::vector<size_t>(limits.reqd.begin(), limits.reqd.end()));
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
      return out.scalar(rk ? rk->info.preferred_multiple : size_t{16});
    case CL_KERNEL_PRIVATE_MEM_SIZE:
      return out.scalar(rk ? rk->info.private_mem
                           : cl_ulong{nk ? backend::native::private_bytes(*nk) : 0});
    default:
      return refuse(__func__, CL_INVALID_VALUE, "unknown param_name 0x", std::hex, param_name);
  }
}

cl_int CL_API_CALL clGetKernelArgInfo(cl_kernel kernel, cl_uint arg_index,
                                      cl_kernel_arg_info param_name, size_t param_value_size,
                                      void* param_value, size_t* param_value_size_ret) {
  auto* k = checked<Kernel>(kernel);
  PARASOL_REFUSE_IF(!k, CL_INVALID_KERNEL, "not a live Parasol kernel");
  PARASOL_REFUSE_IF(arg_index >= k->num_args(), CL_INVALID_ARG_INDEX, "no argument ", arg_index);
  const auto& a = k->arg_info()[arg_index];
  PARASOL_REFUSE_IF(a.address == backend::KernelArgInfo::kAddressUnknown,
                    CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "kernel ", k->name(),
                    " comes from a binary its vendor keeps no argument information for");
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  switch (param_name) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER: return out.scalar(a.address);
    case CL_KERNEL_ARG_ACCESS_QUALIFIER: return out.scalar(a.access);
    case CL_KERNEL_ARG_TYPE_NAME: return out.string(a.type_name);
    case CL_KERNEL_ARG_TYPE_QUALIFIER: return out.scalar(a.type_qualifier);
    case CL_KERNEL_ARG_NAME: return out.string(a.name);
    default:
      return refuse(__func__, CL_INVALID_VALUE, "unknown param_name 0x", std::hex, param_name);
  }
}

cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue command_queue, cl_kernel kernel,
                                          cl_uint work_dim, const size_t* global_work_offset,
                                          const size_t* global_work_size,
                                          const size_t* local_work_size,
                                          cl_uint num_events_in_wait_list,
                                          const cl_event* event_wait_list, cl_event* event) {
  auto* q = checked<CommandQueue>(command_queue);
  PARASOL_REFUSE_IF(!q, CL_INVALID_COMMAND_QUEUE, "not a live Parasol queue");
  auto* k = checked<Kernel>(kernel);
  PARASOL_REFUSE_IF(!k, CL_INVALID_KERNEL, "not a live Parasol kernel");
  PARASOL_REFUSE_IF(k->program()->context() != q->context(), CL_INVALID_CONTEXT,
                    "queue and kernel of different contexts");
  PARASOL_REFUSE_IF(q->device() && !k->runs_on(q->device()), CL_INVALID_PROGRAM_EXECUTABLE,
                    "the program of kernel ", k->name(), " is not built for ", q->device()->name());
  PARASOL_REFUSE_IF(work_dim < 1 || work_dim > 3, CL_INVALID_WORK_DIMENSION, "work_dim ",
                    work_dim, " is not 1, 2 or 3");
  runtime::NDRange range;
  range.work_dim = work_dim;
  // A range with no work-item (no global size, or a 0 in it: OpenCL 2.1)
  // completes once its wait list has.
  bool empty = !global_work_size;
  for (cl_uint i = 0; i < work_dim && !empty; ++i) {
    empty |= global_work_size[i] == 0;
    range.global[i] = global_work_size[i];
    if (global_work_offset) range.offset[i] = global_work_offset[i];
  }
  // Every device the command may run on must accept the work-group.
  Device* const own = q->device();
  const std::span<Device* const> candidates =
      own ? std::span<Device* const>(&own, 1) : std::span<Device* const>(q->context()->devices());
  // Without a local size, the kernel's reqd_work_group_size is the
  // work-group (OpenCL 2.0 on): every device is given it, as if the
  // application had (a vendor may refuse a null one).
  const size_t* local = local_work_size;
  std::array<std::size_t, 3> reqd{};
  if (!local && !empty) {
    for (Device* d : candidates)
      if (k->runs_on(d)) {
        reqd = k->work_group_limits(d).reqd;
        break;
      }
    if (reqd[0]) {
      for (cl_uint i = work_dim; i < 3; ++i)
        PARASOL_REFUSE_IF(reqd[i] != 1, CL_INVALID_WORK_GROUP_SIZE, "the reqd_work_group_size of ",
                          k->name(), " has ", reqd[i], " work-items along dimension ", i,
                          ", past work_dim ", work_dim);
      local = reqd.data();
    }
  }
  for (cl_uint i = 0; i < work_dim && global_work_size && local; ++i) {
    PARASOL_REFUSE_IF(local[i] == 0 || global_work_size[i] % local[i], CL_INVALID_WORK_GROUP_SIZE,
                      "local size ", local[i], " does not divide global_work_size[", i, "]");
    range.local[i] = local[i];
  }
  for (Device* d : candidates) {
    if (!local || !k->runs_on(d)) continue;
    const auto limits = k->work_group_limits(d);
    for (cl_uint i = work_dim; i < 3; ++i) range.local[i] = 1;
    size_t total = range.local[0] * range.local[1] * range.local[2];
    PARASOL_REFUSE_IF(total > limits.max_total, CL_INVALID_WORK_GROUP_SIZE, "work-group of ",
                      total, " items exceeds what ", d->name(), " accepts for ", k->name());
    for (cl_uint i = 0; i < work_dim; ++i)
      PARASOL_REFUSE_IF(range.local[i] > limits.max_items[i], CL_INVALID_WORK_ITEM_SIZE,
                        "local_work_size[", i, "] exceeds ", d->name(), "'s limit");
    PARASOL_REFUSE_IF(limits.reqd[0] && (limits.reqd[0] != range.local[0] ||
                                         limits.reqd[1] != range.local[1] ||
                                         limits.reqd[2] != range.local[2]),
                      CL_INVALID_WORK_GROUP_SIZE,
                      "local size differs from the kernel's reqd_work_group_size");
  }
  WaitList waits;
  if (cl_int err = check_wait_list(__func__, num_events_in_wait_list, event_wait_list,
                                   q->context(), waits))
    return err;
  if (empty) {
    PARASOL_REFUSE_IF(!k->args_view().complete(), CL_INVALID_KERNEL_ARGS, "kernel ", k->name(),
                      " has unset arguments, or a buffer argument released since it was set");
    give_event(runtime::submit(*q, CL_COMMAND_NDRANGE_KERNEL, nullptr, waits), event);
    return CL_SUCCESS;
  }
  // A SOCL divide function, when one is set, runs instead of the kernel
  // (unless it is running already: its own launches run the kernel).
  if (k->try_begin_socl_division()) {
    core::Ref<core::Event> done;
    if (cl_int err = runtime::enqueue_socl_divided(*q, *k, waits, done)) return err;
    give_event(std::move(done), event);
    return CL_SUCCESS;
  }
  core::Kernel::ArgsView view = k->args_view();
  PARASOL_REFUSE_IF(!view.complete(), CL_INVALID_KERNEL_ARGS, "kernel ", k->name(),
                    " has unset arguments, or a buffer argument released since it was set");
  // __local memory past CL_DEVICE_LOCAL_MEM_SIZE: Parasol's native device
  // refuses the work-group here (vendors refuse it themselves, at launch);
  // on a context queue the other devices may still take it.
  bool local_fits = false;
  std::size_t local_needed = 0;
  for (Device* d : candidates) {
    if (!k->runs_on(d)) continue;
    const backend::native::NativeKernel* nk = k->native_for(d);
    local_needed = nk ? backend::native::local_bytes(*nk, core::local_arg_bytes(view.args())) : 0;
    local_fits |= local_needed <= backend::native::kLocalMemBytes;
  }
  PARASOL_REFUSE_IF(!local_fits, CL_OUT_OF_RESOURCES, "kernel ", k->name(), " needs ",
                    local_needed, " bytes of __local memory per work-group; Parasol's native "
                    "device has ", backend::native::kLocalMemBytes);
  give_event(runtime::submit_kernel(*q, *k, view, range, waits, event != nullptr), event);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clEnqueueTask(cl_command_queue command_queue, cl_kernel kernel,
                                 cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                                 cl_event* event) {
  const size_t one = 1;
  return icd::clEnqueueNDRangeKernel(command_queue, kernel, 1, nullptr, &one, &one,
                                num_events_in_wait_list, event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueNativeKernel(cl_command_queue command_queue,
                                         void(CL_CALLBACK* user_func)(void*), void* args,
                                         size_t cb_args, cl_uint num_mem_objects,
                                         const cl_mem* mem_list, const void** args_mem_loc,
                                         cl_uint num_events_in_wait_list,
                                         const cl_event* event_wait_list, cl_event* event) {
  auto* q = checked<CommandQueue>(command_queue);
  PARASOL_REFUSE_IF(!q, CL_INVALID_COMMAND_QUEUE, "not a live Parasol queue");
  PARASOL_REFUSE_IF(!user_func, CL_INVALID_VALUE, "user_func is null");
  PARASOL_REFUSE_IF(!args && cb_args > 0, CL_INVALID_VALUE, "args is null but cb_args is ",
                    cb_args);
  PARASOL_REFUSE_IF(args && cb_args == 0, CL_INVALID_VALUE, "args is given but cb_args is 0");
  PARASOL_REFUSE_IF(num_mem_objects > 0 && (!mem_list || !args_mem_loc), CL_INVALID_VALUE,
                    "num_mem_objects is ", num_mem_objects, " but mem_list or args_mem_loc is null");
  PARASOL_REFUSE_IF(num_mem_objects == 0 && (mem_list || args_mem_loc), CL_INVALID_VALUE,
                    "num_mem_objects is 0 but mem_list or args_mem_loc is given");
  // Only the native CPU device runs host functions: a device queue must be
  // on it; a context queue places the command there if the context has it.
  Device* native = q->device();
  if (!native)
    for (Device* d : q->context()->devices())
      if (d->worker().traits.runs_host_functions) native = d;
  PARASOL_REFUSE_IF(!native || !native->worker().traits.runs_host_functions, CL_INVALID_OPERATION,
                    "only Parasol's native CPU device has CL_EXEC_NATIVE_KERNEL");
  std::vector<core::Ref<Buffer>> buffers;
  std::vector<size_t> offsets;
  const auto* block = static_cast<const std::byte*>(args);
  for (cl_uint i = 0; i < num_mem_objects; ++i) {
    auto* b = checked<Buffer>(mem_list[i]);
    PARASOL_REFUSE_IF(!b, CL_INVALID_MEM_OBJECT, "mem_list[", i, "] is not a live Parasol buffer");
    PARASOL_REFUSE_IF(b->context() != q->context(), CL_INVALID_CONTEXT, "mem_list[", i,
                      "] belongs to another context");
    const auto* loc = static_cast<const std::byte*>(args_mem_loc[i]);
    PARASOL_REFUSE_IF(!block || !loc || loc < block || loc + sizeof(void*) > block + cb_args,
                      CL_INVALID_VALUE, "args_mem_loc[", i, "] is not inside the args block");
    buffers.emplace_back(b);
    offsets.push_back(static_cast<size_t>(loc - block));
  }
  WaitList waits;
  if (cl_int err = check_wait_list(__func__, num_events_in_wait_list, event_wait_list,
                                   q->context(), waits))
    return err;
  // The spec's copy of args: the application may reuse its block at once.
  std::vector<std::byte> copy(block, block + cb_args);
  auto work = std::make_unique<runtime::NativeKernelCommand>(native, user_func, std::move(copy),
                                                             std::move(buffers), std::move(offsets));
  give_event(runtime::submit(*q, CL_COMMAND_NATIVE_KERNEL, std::move(work), waits), event);
  return CL_SUCCESS;
}

}  // namespace parasol::icd
