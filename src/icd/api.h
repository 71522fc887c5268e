// Declarations of Parasol's entry points, one per PARASOL_API line of
// entry_points.def, with exactly the signature of the dispatch slot (a
// function typedef declares a function). They live in parasol::icd and are
// never exported under their cl* names: Parasol itself calls the vendors
// through the loader's cl* symbols.
#pragma once

#include <CL/cl_icd.h>

#include <type_traits>

namespace parasol::icd {

#define PARASOL_API(name) extern std::remove_pointer_t<cl_api_##name> name;
#define PARASOL_UNSUPPORTED(name)
#include "icd/entry_points.def"
#undef PARASOL_API
#undef PARASOL_UNSUPPORTED

}  // namespace parasol::icd
