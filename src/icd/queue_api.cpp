// Command-queue entry points, and the synchronisation commands (markers,
// barriers, flush, finish) that act on a whole queue.
#include <vector>

#include "core/command_queue.h"
#include "icd/api.h"
#include "util/info_out.h"
#include "icd/validate.h"
#include "runtime/direct_launch.h"
#include "runtime/submit.h"

namespace parasol::icd {
namespace {

using core::CommandQueue;
using core::Context;
using core::Device;
using core::Ordering;

constexpr cl_command_queue_properties kValidQueueProperties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;

Produced<cl_command_queue> make_queue(const char* function, cl_context context,
                                      cl_device_id device,
                                      cl_command_queue_properties properties) {
  auto* ctx = checked<Context>(context);
  PARASOL_REFUSE_IF(!ctx, CL_INVALID_CONTEXT, "not a live Parasol context");
  Device* dev = nullptr;
  // A null device makes a context queue: the context's policy places each command.
  if (device) {
    dev = checked<Device>(device);
    if (!dev || !ctx->has_device(dev))
      return refuse(function, CL_INVALID_DEVICE, "device is not a device of the context");
  }
  if (properties & ~kValidQueueProperties)
    return refuse(function, CL_INVALID_VALUE, "invalid queue properties 0x", std::hex,
                  properties);
  auto* q = core::create<CommandQueue>(
      ctx, dev, properties,
      properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE ? 0 : runtime::next_home_lane(dev));
  return q->handle();
}

}  // namespace

cl_command_queue CL_API_CALL clCreateCommandQueue(cl_context context, cl_device_id device,
                                                  cl_command_queue_properties properties,
                                                  cl_int* errcode_ret) {
  return produce<cl_command_queue>(
      errcode_ret, [&] { return make_queue(__func__, context, device, properties); });
}

cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(
    cl_context context, cl_device_id device, const cl_queue_properties* properties,
    cl_int* errcode_ret) {
  return produce<cl_command_queue>(errcode_ret, [&]() -> Produced<cl_command_queue> {
    cl_command_queue_properties props = 0;
    std::vector<cl_queue_properties> array;
    for (const cl_queue_properties* p = properties; p && *p; p += 2) {
      PARASOL_REFUSE_IF(p[0] != CL_QUEUE_PROPERTIES && p[0] != CL_QUEUE_SIZE, CL_INVALID_VALUE,
                        "unknown queue property 0x", std::hex, p[0]);
      // Device-side queues (CL_QUEUE_ON_DEVICE, their CL_QUEUE_SIZE): no
      // Parasol device offers them.
      PARASOL_REFUSE_IF(p[0] == CL_QUEUE_SIZE, CL_INVALID_QUEUE_PROPERTIES,
                        "CL_QUEUE_SIZE is for device-side queues, which no device offers");
      props = static_cast<cl_command_queue_properties>(p[1]);
      PARASOL_REFUSE_IF(props & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT),
                        CL_INVALID_QUEUE_PROPERTIES, "no device offers device-side queues");
      array.insert(array.end(), {p[0], p[1]});
    }
    if (properties) array.push_back(0);
    Produced<cl_command_queue> q = make_queue(__func__, context, device, props);
    if (q.value) CommandQueue::from(q.value)->set_properties_array(std::move(array));
    return q;
  });
}

cl_int CL_API_CALL clRetainCommandQueue(cl_command_queue command_queue) {
  return retain_handle<CommandQueue>(__func__, command_queue, CL_INVALID_COMMAND_QUEUE);
}

cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue command_queue) {
  return release_handle<CommandQueue>(__func__, command_queue, CL_INVALID_COMMAND_QUEUE);
}

cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue command_queue,
                                         cl_command_queue_info param_name,
                                         size_t param_value_size, void* param_value,
                                         size_t* param_value_size_ret) {
  auto* q = checked<CommandQueue>(command_queue);
  PARASOL_REFUSE_IF(!q, CL_INVALID_COMMAND_QUEUE, "not a live Parasol queue");
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  switch (param_name) {
    case CL_QUEUE_CONTEXT: return out.scalar(q->context()->handle());
    case CL_QUEUE_DEVICE:
      return out.scalar(q->device() ? q->device()->handle() : cl_device_id{nullptr});
    case CL_QUEUE_REFERENCE_COUNT: return out.scalar(q->api_ref_count());
    case CL_QUEUE_PROPERTIES: return out.scalar(q->properties());
    case CL_QUEUE_PROPERTIES_ARRAY:
      return out.bytes(q->properties_array().data(),
                       q->properties_array().size() * sizeof(cl_queue_properties));
    case CL_QUEUE_DEVICE_DEFAULT: return out.scalar(cl_command_queue{nullptr});
    case CL_QUEUE_SIZE:
      return refuse(__func__, CL_INVALID_COMMAND_QUEUE, "CL_QUEUE_SIZE is for device-side queues");
    default:
      return refuse(__func__, CL_INVALID_VALUE, "unknown param_name 0x", std::hex, param_name);
  }
}

cl_int CL_API_CALL clSetCommandQueueProperty(cl_command_queue command_queue,
                                             cl_command_queue_properties, cl_bool,
                                             cl_command_queue_properties*) {
  PARASOL_REFUSE_IF(!checked<CommandQueue>(command_queue), CL_INVALID_COMMAND_QUEUE,
                    "not a live Parasol queue");
  return refuse(__func__, CL_INVALID_OPERATION,
                "queue properties are fixed at creation (deprecated in OpenCL 1.1)");
}

cl_int CL_API_CALL clFlush(cl_command_queue command_queue) {
  // Commands start as soon as their dependencies allow; only those sent to
  // a vendor's queue directly may wait for the vendor's flush.
  auto* q = checked<CommandQueue>(command_queue);
  PARASOL_REFUSE_IF(!q, CL_INVALID_COMMAND_QUEUE, "not a live Parasol queue");
  runtime::flush(*q);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clFinish(cl_command_queue command_queue) {
  auto* q = checked<CommandQueue>(command_queue);
  PARASOL_REFUSE_IF(!q, CL_INVALID_COMMAND_QUEUE, "not a live Parasol queue");
  runtime::finish(*q);
  return CL_SUCCESS;
}

namespace {

cl_int enqueue_sync(const char* function, cl_command_queue command_queue, cl_uint num_events,
                    const cl_event* wait_list, cl_event* event, cl_command_type type,
                    Ordering ordering) {
  auto* q = checked<CommandQueue>(command_queue);
  PARASOL_REFUSE_IF(!q, CL_INVALID_COMMAND_QUEUE, "not a live Parasol queue");
  WaitList waits;
  if (cl_int err = check_wait_list(function, num_events, wait_list, q->context(), waits))
    return err;
  give_event(runtime::submit(*q, type, nullptr, waits, ordering), event);
  return CL_SUCCESS;
}

}  // namespace

cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue command_queue,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event* event_wait_list,
                                               cl_event* event) {
  return enqueue_sync(__func__, command_queue, num_events_in_wait_list, event_wait_list, event,
                      CL_COMMAND_MARKER, Ordering::WaitForAll);
}

cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue command_queue,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event* event_wait_list,
                                                cl_event* event) {
  return enqueue_sync(__func__, command_queue, num_events_in_wait_list, event_wait_list, event,
                      CL_COMMAND_BARRIER, Ordering::Barrier);
}

cl_int CL_API_CALL clEnqueueMarker(cl_command_queue command_queue, cl_event* event) {
  PARASOL_REFUSE_IF(!event, CL_INVALID_VALUE, "event is null");
  return enqueue_sync(__func__, command_queue, 0, nullptr, event, CL_COMMAND_MARKER,
                      Ordering::WaitForAll);
}

cl_int CL_API_CALL clEnqueueBarrier(cl_command_queue command_queue) {
  return enqueue_sync(__func__, command_queue, 0, nullptr, nullptr, CL_COMMAND_BARRIER,
                      Ordering::Barrier);
}

cl_int CL_API_CALL clEnqueueWaitForEvents(cl_command_queue command_queue, cl_uint num_events,
                                          const cl_event* event_list) {
  PARASOL_REFUSE_IF(num_events == 0 || !event_list, CL_INVALID_VALUE, "no events given");
  // OpenCL 1.0's wait is a barrier on the listed events.
  return enqueue_sync(__func__, command_queue, num_events, event_list, nullptr,
                      CL_COMMAND_BARRIER, Ordering::Barrier);
}

}  // namespace parasol::icd
