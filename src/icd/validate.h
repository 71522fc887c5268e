// The API boundary's one validation vocabulary. Every entry point checks its
// arguments here, once, and answers the spec's error code; the layers below
// trust what they are given.
//
//   auto* ctx = checked<Context>(context);
//   PARASOL_REFUSE_IF(!ctx, CL_INVALID_CONTEXT, "not a live Parasol context");
//
// A refusal is logged at info level (PARASOL_LOG=info shows why a call failed).
#pragma once

#include <CL/cl.h>

#include <span>
#include <vector>

#include "core/event.h"
#include "core/object.h"
#include "util/error_name.h"
#include "util/log.h"
#include "util/small_vector.h"

namespace parasol::icd {

using parasol::error_name;

template <typename... Parts>
cl_int refuse(const char* function, cl_int code, const Parts&... parts) {
  log::info(function, ": ", error_name(code), ": ", parts...);
  return code;
}

#define PARASOL_REFUSE_IF(cond, code, ...)                         \
  do {                                                             \
    if (cond) return ::parasol::icd::refuse(__func__, code, __VA_ARGS__); \
  } while (0)

// The object behind a handle, or null for a null, foreign or released one.
template <typename T, typename Handle>
T* checked(Handle* h) {
  return core::registry::contains(h, T::kind) ? T::from(h) : nullptr;
}

// clRetain*/clRelease* of every object type: one body each.
template <typename T, typename Handle>
cl_int retain_handle(const char* function, Handle* h, cl_int invalid) {
  T* o = checked<T>(h);
  if (!o) return refuse(function, invalid, "not a live Parasol object of this type");
  o->retain_api();
  return CL_SUCCESS;
}
template <typename T, typename Handle>
cl_int release_handle(const char* function, Handle* h, cl_int invalid) {
  T* o = checked<T>(h);
  if (!o) return refuse(function, invalid, "not a live Parasol object of this type");
  o->release_api();
  return CL_SUCCESS;
}

// The result of an entry point that returns a handle and reports errors
// through errcode_ret.
template <typename H>
struct Produced {
  Produced(H v) : value(v) {}
  Produced(cl_int e) : error(e) {}
  // A handle given out with an error all the same (clLinkProgram's
  // CL_LINK_PROGRAM_FAILURE: the program holds the logs).
  Produced(H v, cl_int e) : value(v), error(e) {}
  H value = nullptr;
  cl_int error = CL_SUCCESS;
};

template <typename H, typename Body>
H produce(cl_int* errcode_ret, Body&& body) {
  Produced<H> r = body();
  if (errcode_ret) *errcode_ret = r.error;
  return r.value;  // null but where an error comes with a handle
}

// A 0-terminated name-value property list as given (its 0 included; empty
// for none), for the *_PROPERTIES queries.
template <typename T>
std::vector<T> property_list(const T* properties) {
  std::vector<T> out;
  if (!properties) return out;
  const T* p = properties;
  while (*p) p += 2;
  out.assign(properties, p + 1);
  return out;
}

// An enqueue's resolved wait list: in place for the usual few (each command
// of a chain names one event, and a heap list would cost it an allocation).
using WaitList = SmallVector<core::Event*, 8>;

// Checks an event wait list (CL_INVALID_EVENT_WAIT_LIST, CL_INVALID_CONTEXT)
// and resolves it into out.
cl_int check_listed_events(const char* function, cl_uint count, const cl_event* list,
                           const void* context, WaitList& out);
inline cl_int check_wait_list(const char* function, cl_uint count, const cl_event* list,
                              const void* context, WaitList& out) {
  if (count == 0 && !list) return CL_SUCCESS;  // most commands: no call for nothing
  return check_listed_events(function, count, list, context, out);
}

// Hands an internal event to the user through event_out (or drops it).
void give_event(core::Ref<core::Event> event, cl_event* event_out);

}  // namespace parasol::icd
