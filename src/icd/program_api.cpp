// Program entry points: creation from source or binaries, per-device builds,
// program and build info.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/program.h"
#include "icd/api.h"
#include "util/info_out.h"
#include "icd/validate.h"
#include "util/log.h"

namespace parasol::icd {
namespace {

using core::Context;
using core::Device;
using core::Program;

// The devices a build or query names: all of the program's if none are given.
cl_int resolve_devices(const char* function, Program& p, cl_uint num, const cl_device_id* list,
                       std::vector<Device*>& out) {
  if ((num > 0) != (list != nullptr))
    return refuse(function, CL_INVALID_VALUE, "num_devices and device_list disagree");
  if (!list) {
    for (auto& b : p.builds()) out.push_back(b.device);
    return CL_SUCCESS;
  }
  for (cl_uint i = 0; i < num; ++i) {
    auto* d = checked<Device>(list[i]);
    if (!d || !p.build_for(d))
      return refuse(function, CL_INVALID_DEVICE, "device_list[", i,
                    "] is not a device of the program");
    out.push_back(d);
  }
  return CL_SUCCESS;
}

}  // namespace

cl_program CL_API_CALL clCreateProgramWithSource(cl_context context, cl_uint count,
                                                 const char** strings, const size_t* lengths,
                                                 cl_int* errcode_ret) {
  return produce<cl_program>(errcode_ret, [&]() -> Produced<cl_program> {
    auto* ctx = checked<Context>(context);
    PARASOL_REFUSE_IF(!ctx, CL_INVALID_CONTEXT, "not a live Parasol context");
    PARASOL_REFUSE_IF(count == 0 || !strings, CL_INVALID_VALUE, "no source strings");
    std::string source;
    for (cl_uint i = 0; i < count; ++i) {
      PARASOL_REFUSE_IF(!strings[i], CL_INVALID_VALUE, "strings[", i, "] is null");
      if (lengths && lengths[i])
        source.append(strings[i], lengths[i]);
      else
        source.append(strings[i]);
    }
    cl_int err = CL_SUCCESS;
    auto* p = core::create<Program>(ctx, std::move(source), err);
    if (err != CL_SUCCESS) {
      p->release_api();
      return err;
    }
    return p->handle();
  });
}

cl_program CL_API_CALL clCreateProgramWithBinary(cl_context context, cl_uint num_devices,
                                                 const cl_device_id* device_list,
                                                 const size_t* lengths,
                                                 const unsigned char** binaries,
                                                 cl_int* binary_status, cl_int* errcode_ret) {
  return produce<cl_program>(errcode_ret, [&]() -> Produced<cl_program> {
    auto* ctx = checked<Context>(context);
    PARASOL_REFUSE_IF(!ctx, CL_INVALID_CONTEXT, "not a live Parasol context");
    PARASOL_REFUSE_IF(num_devices == 0 || !device_list, CL_INVALID_VALUE, "no devices given");
    PARASOL_REFUSE_IF(!lengths || !binaries, CL_INVALID_VALUE, "lengths or binaries is null");
    std::vector<Device*> devices;
    std::vector<std::vector<unsigned char>> bins;
    for (cl_uint i = 0; i < num_devices; ++i) {
      auto* d = checked<Device>(device_list[i]);
      PARASOL_REFUSE_IF(!d || !ctx->has_device(d), CL_INVALID_DEVICE, "device_list[", i,
                        "] is not a device of the context");
      PARASOL_REFUSE_IF(!binaries[i] || lengths[i] == 0, CL_INVALID_VALUE, "binary ", i,
                        " is empty");
      devices.push_back(d);
      bins.emplace_back(binaries[i], binaries[i] + lengths[i]);
    }
    cl_int err = CL_SUCCESS;
    auto* p = core::create<Program>(ctx, devices, bins, binary_status, err);
    if (err != CL_SUCCESS) {
      p->release_api();
      return refuse(__func__, err, "a vendor rejected a binary");
    }
    return p->handle();
  });
}

cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(cl_context context, cl_uint num_devices,
                                                         const cl_device_id* device_list,
                                                         const char* kernel_names,
                                                         cl_int* errcode_ret) {
  return produce<cl_program>(errcode_ret, [&]() -> Produced<cl_program> {
    auto* ctx = checked<Context>(context);
    PARASOL_REFUSE_IF(!ctx, CL_INVALID_CONTEXT, "not a live Parasol context");
    PARASOL_REFUSE_IF(num_devices == 0 || !device_list, CL_INVALID_VALUE, "no devices given");
    PARASOL_REFUSE_IF(!kernel_names, CL_INVALID_VALUE, "kernel_names is null");
    std::vector<Device*> devices;
    for (cl_uint i = 0; i < num_devices; ++i) {
      auto* d = checked<Device>(device_list[i]);
      PARASOL_REFUSE_IF(!d || !ctx->has_device(d), CL_INVALID_DEVICE, "device_list[", i,
                        "] is not a device of the context");
      devices.push_back(d);
    }
    cl_int err = CL_SUCCESS;
    auto* p = core::create<Program>(ctx, devices, kernel_names, Program::BuiltIn{}, err);
    if (err != CL_SUCCESS) {
      p->release_api();
      return refuse(__func__, err, "built-in kernels \"", kernel_names,
                    "\" are not all offered by the listed devices (CL_DEVICE_BUILT_IN_KERNELS)");
    }
    return p->handle();
  });
}

cl_int CL_API_CALL clRetainProgram(cl_program program) {
  return retain_handle<Program>(__func__, program, CL_INVALID_PROGRAM);
}

cl_int CL_API_CALL clReleaseProgram(cl_program program) {
  return release_handle<Program>(__func__, program, CL_INVALID_PROGRAM);
}

cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num_devices,
                                  const cl_device_id* device_list, const char* options,
                                  void(CL_CALLBACK* pfn_notify)(cl_program, void*),
                                  void* user_data) {
  auto* p = checked<Program>(program);
  PARASOL_REFUSE_IF(!p, CL_INVALID_PROGRAM, "not a live Parasol program");
  PARASOL_REFUSE_IF(!pfn_notify && user_data, CL_INVALID_VALUE, "user_data without pfn_notify");
  std::vector<Device*> devices;
  if (cl_int err = resolve_devices(__func__, *p, num_devices, device_list, devices)) return err;
  cl_int err = p->build(devices, options ? options : "");
  PARASOL_REFUSE_IF(err == CL_INVALID_OPERATION, err,
                    "a build is in progress or kernels are attached to the program");
  if (pfn_notify) pfn_notify(program, user_data);
  if (err != CL_SUCCESS) return refuse(__func__, err, "see the per-device build logs");
  return CL_SUCCESS;
}

cl_int CL_API_CALL clCompileProgram(cl_program program, cl_uint num_devices,
                                    const cl_device_id* device_list, const char* options,
                                    cl_uint num_input_headers, const cl_program* input_headers,
                                    const char** header_include_names,
                                    void(CL_CALLBACK* pfn_notify)(cl_program, void*),
                                    void* user_data) {
  auto* p = checked<Program>(program);
  PARASOL_REFUSE_IF(!p, CL_INVALID_PROGRAM, "not a live Parasol program");
  PARASOL_REFUSE_IF(!pfn_notify && user_data, CL_INVALID_VALUE, "user_data without pfn_notify");
  PARASOL_REFUSE_IF(num_input_headers == 0 && (input_headers || header_include_names),
                    CL_INVALID_VALUE, "input headers given but num_input_headers is 0");
  PARASOL_REFUSE_IF(num_input_headers > 0 && (!input_headers || !header_include_names),
                    CL_INVALID_VALUE, "num_input_headers is ", num_input_headers,
                    " but input_headers or header_include_names is null");
  std::vector<Device*> devices;
  if (cl_int err = resolve_devices(__func__, *p, num_devices, device_list, devices)) return err;
  std::vector<Program::Header> headers;
  for (cl_uint i = 0; i < num_input_headers; ++i) {
    auto* h = checked<Program>(input_headers[i]);
    PARASOL_REFUSE_IF(!h || h->context() != p->context(), CL_INVALID_PROGRAM, "input_headers[",
                      i, "] is not a live program of the program's context");
    PARASOL_REFUSE_IF(h->origin() != Program::Origin::Source, CL_INVALID_OPERATION,
                      "input_headers[", i, "] was not created from source");
    PARASOL_REFUSE_IF(!header_include_names[i], CL_INVALID_VALUE, "header_include_names[", i,
                      "] is null");
    headers.emplace_back(header_include_names[i], h);
  }
  PARASOL_REFUSE_IF(p->origin() != Program::Origin::Source, CL_INVALID_OPERATION,
                    "the program has no source to compile");
  cl_int err = p->compile(devices, options ? options : "", headers);
  PARASOL_REFUSE_IF(err == CL_INVALID_OPERATION, err,
                    "a build is in progress or kernels are attached to the program");
  if (pfn_notify) pfn_notify(program, user_data);
  if (err != CL_SUCCESS) return refuse(__func__, err, "see the per-device build logs");
  return CL_SUCCESS;
}

cl_program CL_API_CALL clLinkProgram(cl_context context, cl_uint num_devices,
                                     const cl_device_id* device_list, const char* options,
                                     cl_uint num_input_programs, const cl_program* input_programs,
                                     void(CL_CALLBACK* pfn_notify)(cl_program, void*),
                                     void* user_data, cl_int* errcode_ret) {
  return produce<cl_program>(errcode_ret, [&]() -> Produced<cl_program> {
    auto* ctx = checked<Context>(context);
    PARASOL_REFUSE_IF(!ctx, CL_INVALID_CONTEXT, "not a live Parasol context");
    PARASOL_REFUSE_IF((num_devices > 0) != (device_list != nullptr), CL_INVALID_VALUE,
                      "num_devices and device_list disagree");
    PARASOL_REFUSE_IF(num_input_programs == 0 || !input_programs, CL_INVALID_VALUE,
                      "no input programs");
    PARASOL_REFUSE_IF(!pfn_notify && user_data, CL_INVALID_VALUE, "user_data without pfn_notify");
    std::vector<Device*> devices;
    if (device_list) {
      for (cl_uint i = 0; i < num_devices; ++i) {
        auto* d = checked<Device>(device_list[i]);
        PARASOL_REFUSE_IF(!d || !ctx->has_device(d), CL_INVALID_DEVICE, "device_list[", i,
                          "] is not a device of the context");
        devices.push_back(d);
      }
    } else {
      devices = ctx->devices();
    }
    std::vector<Program*> inputs;
    for (cl_uint i = 0; i < num_input_programs; ++i) {
      auto* in = checked<Program>(input_programs[i]);
      PARASOL_REFUSE_IF(!in || in->context() != ctx, CL_INVALID_PROGRAM, "input_programs[", i,
                        "] is not a live program of the context");
      inputs.push_back(in);
    }
    cl_int err = CL_SUCCESS;
    Program* p = Program::link(ctx, devices, options ? options : "", inputs, err);
    if (!p) return refuse(__func__, err, err == CL_INVALID_LINKER_OPTIONS
                                             ? "invalid link options"
                                             : "the inputs' compiled objects do not cover the "
                                               "same devices");
    if (pfn_notify) pfn_notify(p->handle(), user_data);
    if (err != CL_SUCCESS) {
      // The program is returned all the same: its build logs say why.
      log::info("clLinkProgram: the link failed on a device (", err, "); see its build log");
      return Produced<cl_program>(p->handle(), err);
    }
    return p->handle();
  });
}

cl_int CL_API_CALL clGetProgramInfo(cl_program program, cl_program_info param_name,
                                    size_t param_value_size, void* param_value,
                                    size_t* param_value_size_ret) {
  auto* p = checked<Program>(program);
  PARASOL_REFUSE_IF(!p, CL_INVALID_PROGRAM, "not a live Parasol program");
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  auto& builds = p->builds();
  switch (param_name) {
    case CL_PROGRAM_REFERENCE_COUNT: return out.scalar(p->api_ref_count());
    case CL_PROGRAM_CONTEXT: return out.scalar(p->context()->handle());
    case CL_PROGRAM_NUM_DEVICES: return out.scalar(static_cast<cl_uint>(builds.size()));
    case CL_PROGRAM_DEVICES: {
      std::vector<cl_device_id> ids;
      for (auto& b : builds) ids.push_back(b.device->handle());
      return out.array(ids);
    }
    case CL_PROGRAM_SOURCE: return out.string(p->source());
    case CL_PROGRAM_IL: return out.bytes(nullptr, 0);  // no device takes intermediate languages
    case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
    case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT: return out.scalar(cl_bool{CL_FALSE});
    case CL_PROGRAM_BINARY_SIZES: {
      std::vector<size_t> sizes;
      for (auto& b : builds) sizes.push_back(p->binary(b).size());
      return out.array(sizes);
    }
    case CL_PROGRAM_BINARIES: {
      // An array of pointers the application allocated, one per device.
      size_t n = builds.size() * sizeof(unsigned char*);
      if (param_value_size_ret) *param_value_size_ret = n;
      if (!param_value) return CL_SUCCESS;
      PARASOL_REFUSE_IF(param_value_size < n, CL_INVALID_VALUE, "param_value_size too small");
      auto** dst = static_cast<unsigned char**>(param_value);
      for (size_t i = 0; i < builds.size(); ++i) {
        if (!dst[i]) continue;
        auto bin = p->binary(builds[i]);
        std::copy(bin.begin(), bin.end(), dst[i]);
      }
      return CL_SUCCESS;
    }
    case CL_PROGRAM_NUM_KERNELS:
    case CL_PROGRAM_KERNEL_NAMES: {
      PARASOL_REFUSE_IF(!p->built_anywhere(), CL_INVALID_PROGRAM_EXECUTABLE,
                        "the program is built for no device");
      auto names = p->kernel_names();
      if (param_name == CL_PROGRAM_NUM_KERNELS) return out.scalar(names.size());
      std::string joined;
      for (auto& n : names) joined += (joined.empty() ? "" : ";") + n;
      return out.string(joined);
    }
    default:
      return refuse(__func__, CL_INVALID_VALUE, "unknown param_name 0x", std::hex, param_name);
  }
}

cl_int CL_API_CALL clGetProgramBuildInfo(cl_program program, cl_device_id device,
                                         cl_program_build_info param_name,
                                         size_t param_value_size, void* param_value,
                                         size_t* param_value_size_ret) {
  auto* p = checked<Program>(program);
  PARASOL_REFUSE_IF(!p, CL_INVALID_PROGRAM, "not a live Parasol program");
  auto* d = checked<Device>(device);
  core::DeviceBuild* b = d ? p->build_for(d) : nullptr;
  PARASOL_REFUSE_IF(!b, CL_INVALID_DEVICE, "not a device of the program");
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  switch (param_name) {
    case CL_PROGRAM_BUILD_STATUS: return out.scalar(b->status);
    case CL_PROGRAM_BUILD_OPTIONS: return out.string(b->options);
    case CL_PROGRAM_BUILD_LOG: return out.string(b->log);
    case CL_PROGRAM_BINARY_TYPE: return out.scalar(b->binary_type);
    case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: {
      const size_t total = b->status == CL_BUILD_SUCCESS
                               ? b->device->backend().global_variable_bytes(b->program)
                               : 0;
      return out.scalar(total);
    }
    default:
      return refuse(__func__, CL_INVALID_VALUE, "unknown param_name 0x", std::hex, param_name);
  }
}

}  // namespace parasol::icd
