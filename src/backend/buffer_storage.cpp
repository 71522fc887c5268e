#include "backend/buffer_storage.h"

#include <cstdlib>

#include "backend/cluster.h"
#include "backend/deferred_release.h"
#include "backend/starpu_runtime.h"

namespace parasol::backend {
namespace {
// Set during static initialisation, before any storage exists.
void (*g_release_hook)(starpu_data_handle_t) = nullptr;
}  // namespace

void BufferStorage::set_release_hook(void (*hook)(starpu_data_handle_t)) { g_release_hook = hook; }

BufferStorage::BufferStorage(std::size_t size, void* user_memory) : size_(size) {
  if (user_memory) {
    host_ = static_cast<std::byte*>(user_memory);
  } else {
    // Page-aligned so vendors can use it for fast transfers.
    std::size_t rounded = (size + 4095) / 4096 * 4096;
    host_ = static_cast<std::byte*>(std::aligned_alloc(4096, rounded));
    if (!host_) return;
    owns_host_ = true;
  }
  // Registration and unregistration run on this thread: no worker needed.
  starpu_variable_data_register(&handle_, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(host_),
                                size);
  // OpenCL orders commands by events and queues, not by data: StarPU only
  // keeps the copies coherent and arbitrates concurrent access.
  starpu_data_set_sequential_consistency_flag(handle_, 0);
}

void BufferStorage::after_release(std::function<void()> fn) {
  after_release_.push_back(std::move(fn));
}

VendorCopies& BufferStorage::vendor_copies() {
  std::call_once(copies_once_, [this] { vendor_copies_ = std::make_unique<VendorCopies>(size_); });
  return *vendor_copies_;
}

std::uint64_t BufferStorage::remote_id() {
  static std::atomic<std::uint64_t> next{0};
  std::uint64_t id = remote_id_.load(std::memory_order_acquire);
  if (id) return id;
  const std::uint64_t mine = next.fetch_add(1) + 1;
  return remote_id_.compare_exchange_strong(id, mine, std::memory_order_acq_rel) ? mine : id;
}

BufferStorage::~BufferStorage() {
  if (handle_ && g_release_hook) g_release_hook(handle_);
  // The nodes' copies go with it.
  if (const std::uint64_t id = remote_id_.load(std::memory_order_acquire))
    if (ClusterLink* link = cluster_link()) link->release_storage(id);
  defer_release([handle = handle_, host = owns_host_ ? host_ : nullptr,
                 callbacks = std::move(after_release_)] {
    if (handle)
      StarpuRuntime::while_running([handle] { starpu_data_unregister_no_coherency(handle); });
    std::free(host);
    for (auto it = callbacks.rbegin(); it != callbacks.rend(); ++it) (*it)();
  });
}

}  // namespace parasol::backend
