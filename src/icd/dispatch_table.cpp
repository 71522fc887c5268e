// The one dispatch table every Parasol handle points to, built from
// entry_points.def so that adding an entry point is one line there, and
// handed to core/ (which creates the handles) when the library loads.
#include "core/object.h"
#include "icd/api.h"
#include "icd/unsupported_api.h"

namespace parasol::icd {
namespace {

const cl_icd_dispatch kTable = [] {
  cl_icd_dispatch t{};
#define PARASOL_API(name) t.name = &::parasol::icd::name;
#define PARASOL_UNSUPPORTED(name) \
  t.name = ::parasol::icd::unsupported_slot<cl_api_##name, #name>();
#include "icd/entry_points.def"
#undef PARASOL_API
#undef PARASOL_UNSUPPORTED
  return t;
}();

const bool kHandedOver = (core::set_dispatch_table(&kTable), true);

}  // namespace
}  // namespace parasol::icd
