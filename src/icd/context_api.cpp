// Context entry points.
#include <CL/cl_parasol.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backend/starpu_policies.h"
#include "core/context.h"
#include "core/platform.h"
#include "icd/api.h"
#include "util/info_out.h"
#include "icd/validate.h"

namespace parasol::icd {
namespace {

using core::Context;
using core::Device;
using core::Platform;

struct ContextProperties {
  std::vector<cl_context_properties> list;  // as given, 0-terminated, or empty
  std::string scheduler;
};

cl_int parse_properties(const char* function, const cl_context_properties* props,
                        ContextProperties& out) {
  out.scheduler = backend::default_policy();
  if (!props) return CL_SUCCESS;
  std::vector<cl_context_properties> seen;
  for (const cl_context_properties* p = props; *p; p += 2) {
    cl_context_properties name = p[0], value = p[1];
    if (std::find(seen.begin(), seen.end(), name) != seen.end())
      return refuse(function, CL_INVALID_PROPERTY, "property 0x", std::hex, name,
                    " given twice");
    seen.push_back(name);
    switch (name) {
      case CL_CONTEXT_PLATFORM:
        if (reinterpret_cast<cl_platform_id>(value) != Platform::instance().handle())
          return refuse(function, CL_INVALID_PLATFORM,
                        "CL_CONTEXT_PLATFORM is not the Parasol platform");
        break;
      case CL_CONTEXT_SCHEDULER_PARASOL: {
        const char* policy = reinterpret_cast<const char*>(value);
        if (!policy || !backend::is_known_policy(policy)) {
          log::warn("unknown scheduling policy '", policy ? policy : "(null)",
                    "'; valid names: ", backend::known_policy_list());
          return refuse(function, CL_INVALID_PROPERTY, "unknown scheduling policy");
        }
        out.scheduler = policy;
        break;
      }
      case CL_CONTEXT_SPLIT_PARASOL:
        if (value != CL_TRUE && value != CL_FALSE)
          return refuse(function, CL_INVALID_PROPERTY,
                        "CL_CONTEXT_SPLIT_PARASOL is neither CL_TRUE nor CL_FALSE");
        break;
      case CL_CONTEXT_INTEROP_USER_SYNC:
        if (value != CL_TRUE && value != CL_FALSE)
          return refuse(function, CL_INVALID_PROPERTY,
                        "CL_CONTEXT_INTEROP_USER_SYNC is neither CL_TRUE nor CL_FALSE");
        break;
      default:
        return refuse(function, CL_INVALID_PROPERTY, "unknown context property 0x", std::hex,
                      name);
    }
  }
  out.list.assign(props, props + seen.size() * 2 + 1);
  return CL_SUCCESS;
}

Produced<cl_context> make_context(const char* function, const cl_context_properties* props,
                                  std::vector<Device*> devices, core::ContextNotify notify,
                                  void* user_data) {
  ContextProperties parsed;
  if (cl_int err = parse_properties(function, props, parsed)) return err;
  auto* ctx = core::create<Context>(std::move(devices), std::move(parsed.list), notify,
                                    user_data, std::move(parsed.scheduler));
  return ctx->handle();
}

}  // namespace

cl_context CL_API_CALL clCreateContext(const cl_context_properties* properties,
                                       cl_uint num_devices, const cl_device_id* devices,
                                       void(CL_CALLBACK* pfn_notify)(const char*, const void*,
                                                                     size_t, void*),
                                       void* user_data, cl_int* errcode_ret) {
  return produce<cl_context>(errcode_ret, [&]() -> Produced<cl_context> {
    PARASOL_REFUSE_IF(!devices || num_devices == 0, CL_INVALID_VALUE, "no devices given");
    PARASOL_REFUSE_IF(!pfn_notify && user_data, CL_INVALID_VALUE,
                      "user_data given without pfn_notify");
    std::vector<Device*> list;
    for (cl_uint i = 0; i < num_devices; ++i) {
      auto* d = checked<Device>(devices[i]);
      PARASOL_REFUSE_IF(!d, CL_INVALID_DEVICE, "devices[", i, "] is not a Parasol device");
      PARASOL_REFUSE_IF(!d->available(), CL_DEVICE_NOT_AVAILABLE, "devices[", i, "], ", d->label(),
                        ", is not available");
      if (std::find(list.begin(), list.end(), d) == list.end()) list.push_back(d);
    }
    return make_context(__func__, properties, std::move(list), pfn_notify, user_data);
  });
}

cl_context CL_API_CALL clCreateContextFromType(const cl_context_properties* properties,
                                               cl_device_type device_type,
                                               void(CL_CALLBACK* pfn_notify)(const char*,
                                                                             const void*,
                                                                             size_t, void*),
                                               void* user_data, cl_int* errcode_ret) {
  return produce<cl_context>(errcode_ret, [&]() -> Produced<cl_context> {
    PARASOL_REFUSE_IF(!pfn_notify && user_data, CL_INVALID_VALUE,
                      "user_data given without pfn_notify");
    cl_uint n = 0;
    cl_int err = icd::clGetDeviceIDs(nullptr, device_type, 0, nullptr, &n);
    if (err != CL_SUCCESS) return err;
    std::vector<cl_device_id> ids(n);
    icd::clGetDeviceIDs(nullptr, device_type, n, ids.data(), nullptr);
    // Only the devices that take commands (the spec's "currently available").
    std::vector<Device*> list;
    for (cl_device_id id : ids)
      if (Device::from(id)->available()) list.push_back(Device::from(id));
    PARASOL_REFUSE_IF(list.empty(), CL_DEVICE_NOT_AVAILABLE, "no device of type 0x", std::hex,
                      device_type, " is available");
    return make_context(__func__, properties, std::move(list), pfn_notify, user_data);
  });
}

cl_int CL_API_CALL clRetainContext(cl_context context) {
  return retain_handle<Context>(__func__, context, CL_INVALID_CONTEXT);
}

cl_int CL_API_CALL clReleaseContext(cl_context context) {
  return release_handle<Context>(__func__, context, CL_INVALID_CONTEXT);
}

cl_int CL_API_CALL clGetContextInfo(cl_context context, cl_context_info param_name,
                                    size_t param_value_size, void* param_value,
                                    size_t* param_value_size_ret) {
  auto* ctx = checked<Context>(context);
  PARASOL_REFUSE_IF(!ctx, CL_INVALID_CONTEXT, "not a live Parasol context");
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  switch (param_name) {
    case CL_CONTEXT_REFERENCE_COUNT: return out.scalar(ctx->api_ref_count());
    case CL_CONTEXT_NUM_DEVICES:
      return out.scalar(static_cast<cl_uint>(ctx->devices().size()));
    case CL_CONTEXT_DEVICES: {
      std::vector<cl_device_id> ids;
      for (Device* d : ctx->devices()) ids.push_back(d->handle());
      return out.array(ids);
    }
    case CL_CONTEXT_PROPERTIES: return out.array(ctx->properties());
    case CL_CONTEXT_SCHEDULER_PARASOL: return out.string(ctx->scheduler());
    default:
      return refuse(__func__, CL_INVALID_VALUE, "unknown param_name 0x", std::hex, param_name);
  }
}

cl_int CL_API_CALL clSetContextDestructorCallback(cl_context context,
                                                  void(CL_CALLBACK* pfn_notify)(cl_context,
                                                                                void*),
                                                  void* user_data) {
  auto* ctx = checked<Context>(context);
  PARASOL_REFUSE_IF(!ctx, CL_INVALID_CONTEXT, "not a live Parasol context");
  PARASOL_REFUSE_IF(!pfn_notify, CL_INVALID_VALUE, "pfn_notify is null");
  ctx->add_destructor_callback(pfn_notify, user_data);
  return CL_SUCCESS;
}

}  // namespace parasol::icd
