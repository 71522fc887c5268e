// Event entry points: waiting, status, callbacks, profiling, user events.
#include <CL/cl_parasol.h>

#include <vector>

#include "core/command_queue.h"
#include "core/device.h"
#include "icd/api.h"
#include "util/info_out.h"
#include "icd/validate.h"

namespace parasol::icd {
namespace {
using core::Context;
using core::Event;
}  // namespace

cl_int CL_API_CALL clWaitForEvents(cl_uint num_events, const cl_event* event_list) {
  PARASOL_REFUSE_IF(num_events == 0 || !event_list, CL_INVALID_VALUE, "no events given");
  std::vector<Event*> events;
  for (cl_uint i = 0; i < num_events; ++i) {
    auto* e = checked<Event>(event_list[i]);
    PARASOL_REFUSE_IF(!e, CL_INVALID_EVENT, "event_list[", i, "] is not a live Parasol event");
    PARASOL_REFUSE_IF(!events.empty() && e->context() != events[0]->context(),
                      CL_INVALID_CONTEXT, "events of different contexts");
    events.push_back(e);
  }
  return core::wait_for_all(events);
}

cl_int CL_API_CALL clGetEventInfo(cl_event event, cl_event_info param_name,
                                  size_t param_value_size, void* param_value,
                                  size_t* param_value_size_ret) {
  auto* e = checked<Event>(event);
  PARASOL_REFUSE_IF(!e, CL_INVALID_EVENT, "not a live Parasol event");
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  switch (param_name) {
    case CL_EVENT_COMMAND_QUEUE:
      return out.scalar(e->queue() ? e->queue()->handle() : cl_command_queue{nullptr});
    case CL_EVENT_CONTEXT: return out.scalar(e->context()->handle());
    case CL_EVENT_COMMAND_TYPE: return out.scalar(e->command_type());
    case CL_EVENT_COMMAND_EXECUTION_STATUS:
      e->flush_direct();  // a program polling the status must see it progress
      return out.scalar(e->status());
    case CL_EVENT_REFERENCE_COUNT: return out.scalar(e->api_ref_count());
    case CL_EVENT_PARTITIONING_FACTOR_PARASOL: return out.scalar(e->partitioning_factor());
    case CL_EVENT_SPLIT_DEVICES_PARASOL: {
      std::vector<cl_device_id> devices;
      if (const core::Event::SplitParts* parts = e->split_parts())
        for (core::Device* d : parts->devices) devices.push_back(d->handle());
      return out.array(devices);
    }
    case CL_EVENT_SPLIT_GROUPS_PARASOL: {
      std::vector<size_t> groups;
      if (const core::Event::SplitParts* parts = e->split_parts()) groups = parts->groups;
      return out.array(groups);
    }
    case CL_EVENT_DEVICE_PARASOL:
      return out.scalar(e->executed_on() ? e->executed_on()->handle() : cl_device_id{nullptr});
    default:
      return refuse(__func__, CL_INVALID_VALUE, "unknown param_name 0x", std::hex, param_name);
  }
}

cl_int CL_API_CALL clRetainEvent(cl_event event) {
  return retain_handle<Event>(__func__, event, CL_INVALID_EVENT);
}

cl_int CL_API_CALL clReleaseEvent(cl_event event) {
  return release_handle<Event>(__func__, event, CL_INVALID_EVENT);
}

cl_int CL_API_CALL clGetEventProfilingInfo(cl_event event, cl_profiling_info param_name,
                                           size_t param_value_size, void* param_value,
                                           size_t* param_value_size_ret) {
  auto* e = checked<Event>(event);
  PARASOL_REFUSE_IF(!e, CL_INVALID_EVENT, "not a live Parasol event");
  PARASOL_REFUSE_IF(!e->profiled() || e->status() != CL_COMPLETE,
                    CL_PROFILING_INFO_NOT_AVAILABLE,
                    "the queue has no CL_QUEUE_PROFILING_ENABLE or the command did not complete");
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  switch (param_name) {
    case CL_PROFILING_COMMAND_QUEUED: return out.scalar(cl_ulong{e->time_queued()});
    case CL_PROFILING_COMMAND_SUBMIT: return out.scalar(cl_ulong{e->time_submit()});
    case CL_PROFILING_COMMAND_START: return out.scalar(cl_ulong{e->time_start()});
    case CL_PROFILING_COMMAND_END: return out.scalar(cl_ulong{e->time_end()});
    default:
      return refuse(__func__, CL_INVALID_VALUE, "unknown param_name 0x", std::hex, param_name);
  }
}

cl_event CL_API_CALL clCreateUserEvent(cl_context context, cl_int* errcode_ret) {
  return produce<cl_event>(errcode_ret, [&]() -> Produced<cl_event> {
    auto* ctx = checked<Context>(context);
    PARASOL_REFUSE_IF(!ctx, CL_INVALID_CONTEXT, "not a live Parasol context");
    auto* e = core::create<Event>(ctx, nullptr, CL_COMMAND_USER, nullptr);
    return e->handle();
  });
}

cl_int CL_API_CALL clSetUserEventStatus(cl_event event, cl_int execution_status) {
  auto* e = checked<Event>(event);
  PARASOL_REFUSE_IF(!e || e->command_type() != CL_COMMAND_USER, CL_INVALID_EVENT,
                    "not a live Parasol user event");
  PARASOL_REFUSE_IF(execution_status != CL_COMPLETE && execution_status >= 0, CL_INVALID_VALUE,
                    "execution_status must be CL_COMPLETE or negative");
  PARASOL_REFUSE_IF(!e->set_user_status(execution_status), CL_INVALID_OPERATION,
                    "the user event's status was already set");
  return CL_SUCCESS;
}

cl_int CL_API_CALL clSetEventCallback(cl_event event, cl_int command_exec_callback_type,
                                      void(CL_CALLBACK* pfn_notify)(cl_event, cl_int, void*),
                                      void* user_data) {
  auto* e = checked<Event>(event);
  PARASOL_REFUSE_IF(!e, CL_INVALID_EVENT, "not a live Parasol event");
  PARASOL_REFUSE_IF(!pfn_notify, CL_INVALID_VALUE, "pfn_notify is null");
  PARASOL_REFUSE_IF(command_exec_callback_type != CL_COMPLETE &&
                        command_exec_callback_type != CL_SUBMITTED &&
                        command_exec_callback_type != CL_RUNNING,
                    CL_INVALID_VALUE, "callback type must be CL_SUBMITTED, CL_RUNNING or CL_COMPLETE");
  e->add_callback({pfn_notify, user_data, command_exec_callback_type});
  return CL_SUCCESS;
}

}  // namespace parasol::icd
