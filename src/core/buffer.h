// A buffer, sub-buffer or image (cl_mem). Data lives in BufferStorage,
// shared by a buffer and its sub-buffers; a sub-buffer is a window
// [origin, origin+size). An image is a buffer with a shape (backend/image_shape.h);
// a 1D image buffer a window over the whole of its buffer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "backend/buffer_storage.h"
#include "backend/image_mirrors.h"
#include "backend/image_shape.h"
#include "core/context.h"
#include "core/object.h"

namespace parasol::core {

class Buffer final : public Object<Buffer, _cl_mem, ObjectKind::Mem> {
 public:
  Buffer(Context* context, cl_mem_flags flags, std::size_t size, void* host_ptr,
         std::shared_ptr<backend::BufferStorage> storage);
  // A sub-buffer of parent.
  Buffer(Buffer* parent, cl_mem_flags flags, std::size_t origin, std::size_t size);
  // An image of its own storage, or (shape.type CL_MEM_OBJECT_IMAGE1D_BUFFER)
  // over the whole of buffer's.
  Buffer(Context* context, cl_mem_flags flags, const backend::ImageShape& shape, void* host_ptr,
         std::shared_ptr<backend::BufferStorage> storage);
  Buffer(Buffer* buffer, cl_mem_flags flags, const backend::ImageShape& shape);
  ~Buffer();

  Context* context() const { return context_.get(); }
  cl_mem_flags flags() const { return flags_; }
  std::size_t size() const { return size_; }
  void* host_ptr() const { return host_ptr_; }  // as given at creation (USE_HOST_PTR)
  Buffer* parent() const { return parent_.get(); }
  // An image's shape; null for a buffer.
  const backend::ImageShape* image() const { return image_.get(); }
  // An image's vendor images, one per vendor device a kernel took it on.
  backend::ImageMirrors& mirrors() const { return *mirrors_; }
  std::size_t origin() const { return origin_; }  // within the root buffer
  backend::BufferStorage& storage() const { return *storage_; }
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

  // CL_MEM_PROPERTIES: what a *WithProperties creation was given (its
  // terminating 0 included); empty otherwise.
  const std::vector<cl_mem_properties>& properties() const { return properties_; }
  void set_properties(std::vector<cl_mem_properties> p) { properties_ = std::move(p); }

  // The last internal reference went: the buffer lets go of its data and
  // runs its destructor callbacks now; the object's memory stays while a
  // kernel still has it set as an argument (ArgBuffer), so that a launch can
  // tell the argument was released.
  static void destroy(Buffer* self);
  void retain_shell() { shells_.fetch_add(1, std::memory_order_relaxed); }
  void release_shell() {
    if (shells_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 private:
  void retire();

  Ref<Context> context_;
  cl_mem_flags flags_;
  std::size_t size_;
  void* host_ptr_;
  Ref<Buffer> parent_;
  std::size_t origin_ = 0;
  std::shared_ptr<backend::BufferStorage> storage_;
  std::unique_ptr<const backend::ImageShape> image_;
  std::unique_ptr<backend::ImageMirrors> mirrors_;
  std::vector<cl_mem_properties> properties_;

  mutable std::mutex maps_mutex_;
  std::vector<Mapping> mappings_;
  std::mutex callbacks_mutex_;
  std::vector<std::pair<void(CL_CALLBACK*)(cl_mem, void*), void*>> destructor_callbacks_;
  std::atomic<std::uint32_t> shells_{1};  // the ArgBuffers, plus one while the buffer lives
};

// A buffer argument of a kernel. The kernel's own arguments hold it weakly:
// a kernel does not retain the memory objects set as its arguments, so a
// buffer released while set is destroyed (its destructor callbacks run) as
// it would be otherwise. Every copy, a launch's, holds it: take one only
// while live() (the application still holds the buffer).
class ArgBuffer {
 public:
  ArgBuffer() = default;
  static ArgBuffer weak(Buffer* b) {
    ArgBuffer a;
    a.p_ = b;
    a.weak_ = true;
    if (b) b->retain_shell();
    return a;
  }
  ArgBuffer(const ArgBuffer& o) : p_(o.p_) {
    if (p_) p_->retain();
  }
  ArgBuffer(ArgBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), weak_(o.weak_) {}
  ArgBuffer& operator=(ArgBuffer o) noexcept {
    std::swap(p_, o.p_);
    std::swap(weak_, o.weak_);
    return *this;
  }
  ~ArgBuffer() {
    if (!p_) return;
    if (weak_) p_->release_shell();
    else p_->release();
  }

  Buffer* get() const { return p_; }
  Buffer* operator->() const { return p_; }
  Buffer& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  // Whether the application still holds the buffer.
  bool live() const { return p_ && p_->api_ref_count() > 0; }

 private:
  Buffer* p_ = nullptr;
  bool weak_ = false;
};

}  // namespace parasol::core
