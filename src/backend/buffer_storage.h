// The memory behind a buffer: a main-RAM copy at a stable address (the
// user's own for CL_MEM_USE_HOST_PTR) registered with StarPU, which keeps the
// copies on every device coherent. Sub-buffers share their parent's storage.
#pragma once

#include <starpu.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "backend/vendor_copies.h"

namespace parasol::backend {

class BufferStorage {
 public:
  // user_memory: CL_MEM_USE_HOST_PTR's pointer, or null to allocate.
  BufferStorage(std::size_t size, void* user_memory);
  ~BufferStorage();
  BufferStorage(const BufferStorage&) = delete;
  BufferStorage& operator=(const BufferStorage&) = delete;

  bool valid() const { return handle_ != nullptr; }
  starpu_data_handle_t handle() const { return handle_; }
  std::byte* host() const { return host_; }
  std::size_t size() const { return size_; }

  // Its name to the nodes of an MPI job that hold a copy of it (commands on
  // another rank's device), given on first use.
  std::uint64_t remote_id();

  // Its copies in vendors' memory for split launches, made on first use.
  VendorCopies& vendor_copies();
  // Runs after StarPU let go of the memory (clSetMemObjectDestructorCallback).
  void after_release(std::function<void()> fn);
  // Called with a storage's handle as the storage goes, before StarPU lets
  // go of it (runtime/backend_hooks.cpp: leases forget it).
  static void set_release_hook(void (*hook)(starpu_data_handle_t));

 private:
  std::size_t size_;
  std::byte* host_ = nullptr;
  bool owns_host_ = false;
  starpu_data_handle_t handle_ = nullptr;
  std::vector<std::function<void()>> after_release_;
  std::once_flag copies_once_;
  std::atomic<std::uint64_t> remote_id_{0};
  std::unique_ptr<VendorCopies> vendor_copies_;
};

}  // namespace parasol::backend
