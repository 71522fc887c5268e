#include "icd/validate.h"

#include "core/context.h"

namespace parasol::icd {

cl_int check_listed_events(const char* function, cl_uint count, const cl_event* list,
                           const void* context, WaitList& out) {
  if ((count > 0) != (list != nullptr))
    return refuse(function, CL_INVALID_EVENT_WAIT_LIST,
                  "num_events_in_wait_list and event_wait_list disagree");
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
  // too (the event never entered the registry: Event's constructor).
  core::Event* e = event.detach();
  if (!e) return;  // the command went without one (runtime::submit)
  if (event_out) {
    e->list();
    *event_out = e->handle();
  } else {
    e->release_api();
  }
}

}  // namespace parasol::icd
