// The one dispatch table every Parasol handle points to, built from
// entry_points.def so that adding an entry point is one line there.
#include "core/object.h"
#include "icd/api.h"
#include "icd/unsupported_api.h"

namespace parasol::core {

const cl_icd_dispatch* dispatch_table() {
  static const cl_icd_dispatch table = [] {
    cl_icd_dispatch t{};
#define PARASOL_API(name) t.name = &::parasol::icd::name;
#define PARASOL_UNSUPPORTED(name) \
  t.name = ::parasol::icd::unsupported_slot<cl_api_##name, #name>();
#include "icd/entry_points.def"
#undef PARASOL_API
#undef PARASOL_UNSUPPORTED
    return t;
  }();
  return &table;
}

}  // namespace parasol::core
