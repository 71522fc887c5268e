// Where a new buffer's contents go first. A buffer created with contents
// (CL_MEM_COPY_HOST_PTR, CL_MEM_USE_HOST_PTR) in a context of one device
// with memory of its own is copied there at once, in the background, as a
// vendor's clCreateBuffer does: the first command that uses it finds it
// there instead of paying the device's allocation and transfer itself. In
// a context of several devices nothing says which one will use it first:
// it stays in main RAM until a command places it.
#pragma once

#include <memory>

#include "backend/buffer_storage.h"
#include "core/context.h"

namespace parasol::runtime {

void place_initial_contents(const core::Context& context,
                            std::shared_ptr<backend::BufferStorage> storage);

// Returns once StarPU granted every placement asked for (at the process's
// exit, while StarPU still runs: it cannot stop with a request queued).
void wait_for_initial_placements();

}  // namespace parasol::runtime
