// A buffer or sub-buffer (cl_mem). Data lives in BufferStorage, shared by a
// buffer and its sub-buffers; a sub-buffer is a window [origin, origin+size).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "core/context.h"
#include "core/object.h"
#include "runtime/buffer_storage.h"

namespace parasol::core {

class Buffer final : public Object<Buffer, _cl_mem, ObjectKind::Mem> {
 public:
  Buffer(Context* context, cl_mem_flags flags, std::size_t size, void* host_ptr,
         std::shared_ptr<runtime::BufferStorage> storage);
  // A sub-buffer of parent.
  Buffer(Buffer* parent, cl_mem_flags flags, std::size_t origin, std::size_t size);
  ~Buffer();

  Context* context() const { return context_.get(); }
  cl_mem_flags flags() const { return flags_; }
  std::size_t size() const { return size_; }
  void* host_ptr() const { return host_ptr_; }  // as given at creation (USE_HOST_PTR)
  Buffer* parent() const { return parent_.get(); }
  std::size_t origin() const { return origin_; }  // within the root buffer
  runtime::BufferStorage& storage() const { return *storage_; }
  // Main-RAM bytes of this buffer (its window, for a sub-buffer).
  std::byte* host_bytes() const { return storage_->host() + origin_; }

  // An active clEnqueueMapBuffer. The user works on `pointer`: for
  // CL_MEM_USE_HOST_PTR buffers the host memory itself, otherwise a staging
  // copy, so a device writing another part of the buffer meanwhile never
  // clobbers what the user writes.
  struct Mapping {
    void* pointer = nullptr;
    std::size_t offset = 0, size = 0;
    cl_map_flags flags = 0;
    std::shared_ptr<std::byte[]> staging;
  };
  void add_mapping(Mapping m);
  // Removes and returns the mapping at pointer; false if there is none.
  bool take_mapping(const void* pointer, Mapping& out);
  cl_uint map_count() const;

  void add_destructor_callback(void(CL_CALLBACK* fn)(cl_mem, void*), void* user_data);

 private:
  Ref<Context> context_;
  cl_mem_flags flags_;
  std::size_t size_;
  void* host_ptr_;
  Ref<Buffer> parent_;
  std::size_t origin_ = 0;
  std::shared_ptr<runtime::BufferStorage> storage_;

  mutable std::mutex maps_mutex_;
  std::vector<Mapping> mappings_;
  std::mutex callbacks_mutex_;
  std::vector<std::pair<void(CL_CALLBACK*)(cl_mem, void*), void*>> destructor_callbacks_;
};

}  // namespace parasol::core
