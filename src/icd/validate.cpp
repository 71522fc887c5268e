#include "icd/validate.h"

#include "core/context.h"

namespace parasol::icd {

const char* error_name(cl_int code) {
  switch (code) {
#define NAME(c) case c: return #c;
    NAME(CL_SUCCESS) NAME(CL_DEVICE_NOT_FOUND) NAME(CL_DEVICE_NOT_AVAILABLE)
    NAME(CL_COMPILER_NOT_AVAILABLE) NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME(CL_OUT_OF_RESOURCES) NAME(CL_OUT_OF_HOST_MEMORY) NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
    NAME(CL_MEM_COPY_OVERLAP) NAME(CL_IMAGE_FORMAT_MISMATCH) NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    NAME(CL_BUILD_PROGRAM_FAILURE) NAME(CL_MAP_FAILURE) NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) NAME(CL_COMPILE_PROGRAM_FAILURE)
    NAME(CL_LINKER_NOT_AVAILABLE) NAME(CL_LINK_PROGRAM_FAILURE) NAME(CL_DEVICE_PARTITION_FAILED)
    NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) NAME(CL_INVALID_VALUE) NAME(CL_INVALID_DEVICE_TYPE)
    NAME(CL_INVALID_PLATFORM) NAME(CL_INVALID_DEVICE) NAME(CL_INVALID_CONTEXT)
    NAME(CL_INVALID_QUEUE_PROPERTIES) NAME(CL_INVALID_COMMAND_QUEUE) NAME(CL_INVALID_HOST_PTR)
    NAME(CL_INVALID_MEM_OBJECT) NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    NAME(CL_INVALID_IMAGE_SIZE) NAME(CL_INVALID_SAMPLER) NAME(CL_INVALID_BINARY)
    NAME(CL_INVALID_BUILD_OPTIONS) NAME(CL_INVALID_PROGRAM) NAME(CL_INVALID_PROGRAM_EXECUTABLE)
    NAME(CL_INVALID_KERNEL_NAME) NAME(CL_INVALID_KERNEL_DEFINITION) NAME(CL_INVALID_KERNEL)
    NAME(CL_INVALID_ARG_INDEX) NAME(CL_INVALID_ARG_VALUE) NAME(CL_INVALID_ARG_SIZE)
    NAME(CL_INVALID_KERNEL_ARGS) NAME(CL_INVALID_WORK_DIMENSION)
    NAME(CL_INVALID_WORK_GROUP_SIZE) NAME(CL_INVALID_WORK_ITEM_SIZE)
    NAME(CL_INVALID_GLOBAL_OFFSET) NAME(CL_INVALID_EVENT_WAIT_LIST) NAME(CL_INVALID_EVENT)
    NAME(CL_INVALID_OPERATION) NAME(CL_INVALID_GL_OBJECT) NAME(CL_INVALID_BUFFER_SIZE)
    NAME(CL_INVALID_MIP_LEVEL) NAME(CL_INVALID_GLOBAL_WORK_SIZE) NAME(CL_INVALID_PROPERTY)
    NAME(CL_INVALID_IMAGE_DESCRIPTOR) NAME(CL_INVALID_COMPILER_OPTIONS)
    NAME(CL_INVALID_LINKER_OPTIONS) NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef NAME
    default: return "CL_ERROR";
  }
}

cl_int check_wait_list(const char* function, cl_uint count, const cl_event* list,
                       const void* context, std::vector<core::Event*>& out) {
  if ((count > 0) != (list != nullptr))
    return refuse(function, CL_INVALID_EVENT_WAIT_LIST,
                  "num_events_in_wait_list and event_wait_list disagree");
  out.reserve(count);
  for (cl_uint i = 0; i < count; ++i) {
    auto* e = checked<core::Event>(list[i]);
    if (!e)
      return refuse(function, CL_INVALID_EVENT_WAIT_LIST, "wait list entry ", i,
                    " is not a live Parasol event");
    if (context && e->context() != context)
      return refuse(function, CL_INVALID_CONTEXT, "wait list entry ", i,
                    " belongs to another context");
    out.push_back(e);
  }
  return CL_SUCCESS;
}

void give_event(core::Ref<core::Event> event, cl_event* event_out) {
  // An event is born with its API reference; unwanted, that reference goes
  // too, so the handle leaves the registry when the command ends.
  core::Event* e = event.detach();
  if (event_out)
    *event_out = e->handle();
  else
    e->release_api();
}

}  // namespace parasol::icd
