// Parasol's extension entry points (include/CL/cl_parasol.h), by name.
#pragma once

namespace parasol::icd {
// The function named func_name, or null when Parasol has none by that name.
void* extension_function(const char* func_name);
}  // namespace parasol::icd
