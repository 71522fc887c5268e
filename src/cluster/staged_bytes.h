// Main-RAM bytes behind a StarPU handle of their own, which StarPU-MPI sends
// from or receives into (rank 0's transfers and a node's copies of rank 0's
// buffers, cluster/protocol.h); unregistered with them.
#pragma once

#include <starpu.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace parasol::cluster {

struct StagedBytes {
  explicit StagedBytes(std::size_t size) : bytes(size) {
    starpu_variable_data_register(&handle, STARPU_MAIN_RAM,
                                  reinterpret_cast<uintptr_t>(bytes.data()), size);
  }
  // Waits for StarPU to let go of it: not on a StarPU callback's thread.
  ~StagedBytes() { starpu_data_unregister(handle); }
  StagedBytes(const StagedBytes&) = delete;
  StagedBytes& operator=(const StagedBytes&) = delete;

  std::vector<std::byte> bytes;
  starpu_data_handle_t handle = nullptr;
};

}  // namespace parasol::cluster
