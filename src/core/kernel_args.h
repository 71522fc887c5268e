// A launch's copy of its kernel's arguments (core::KernelArg, core/kernel.h).
// Its own header: the native device's compiler interface takes it too, and
// core/kernel.h reaches that interface through core/program.h.
#pragma once

#include <vector>

#include "util/block_pool.h"

namespace parasol::core {

struct KernelArg;

// From the block pool: made on the enqueuing thread, freed where the
// command completes.
using KernelArgs = std::vector<KernelArg, PoolAllocator<KernelArg>>;

}  // namespace parasol::core
