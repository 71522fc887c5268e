#include "core/buffer.h"

namespace parasol::core {

Buffer::Buffer(Context* context, cl_mem_flags flags, std::size_t size, void* host_ptr,
               std::shared_ptr<backend::BufferStorage> storage)
    : context_(context), flags_(flags), size_(size), host_ptr_(host_ptr),
      storage_(std::move(storage)) {}

Buffer::Buffer(Buffer* parent, cl_mem_flags flags, std::size_t origin, std::size_t size)
    : context_(parent->context()), flags_(flags), size_(size),
      host_ptr_(parent->host_ptr() ? static_cast<std::byte*>(parent->host_ptr()) + origin
                                   : nullptr),
      parent_(parent), origin_(parent->origin() + origin), storage_(parent->storage_) {}

Buffer::Buffer(Context* context, cl_mem_flags flags, const backend::ImageShape& shape, void* host_ptr,
               std::shared_ptr<backend::BufferStorage> storage)
    : Buffer(context, flags, shape.bytes(), host_ptr, std::move(storage)) {
  image_ = std::make_unique<const backend::ImageShape>(shape);
  mirrors_ = std::make_unique<backend::ImageMirrors>(shape);
}

Buffer::Buffer(Buffer* buffer, cl_mem_flags flags, const backend::ImageShape& shape)
    : Buffer(buffer, flags, 0, buffer->size()) {
  image_ = std::make_unique<const backend::ImageShape>(shape);
  mirrors_ = std::make_unique<backend::ImageMirrors>(shape);
}

void Buffer::add_mapping(Mapping m) {
  std::lock_guard lock(maps_mutex_);
  mappings_.push_back(std::move(m));
}

bool Buffer::take_mapping(const void* pointer, Mapping& out) {
  std::lock_guard lock(maps_mutex_);
  for (auto it = mappings_.begin(); it != mappings_.end(); ++it)
    if (it->pointer == pointer) {
      out = std::move(*it);
      mappings_.erase(it);
      return true;
    }
  return false;
}

cl_uint Buffer::map_count() const {
  std::lock_guard lock(maps_mutex_);
  return static_cast<cl_uint>(mappings_.size());
}

void Buffer::add_destructor_callback(void(CL_CALLBACK* fn)(cl_mem, void*), void* user_data) {
  std::lock_guard lock(callbacks_mutex_);
  destructor_callbacks_.emplace_back(fn, user_data);
}

void Buffer::destroy(Buffer* self) {
  self->retire();
  self->release_shell();
}

Buffer::~Buffer() = default;

void Buffer::retire() {
  std::vector<std::pair<void(CL_CALLBACK*)(cl_mem, void*), void*>> callbacks;
  {
    std::lock_guard lock(callbacks_mutex_);
    callbacks = std::move(destructor_callbacks_);
  }
  std::shared_ptr<backend::BufferStorage> storage = std::move(storage_);
  Ref<Buffer> parent = std::move(parent_);
  {
    std::lock_guard lock(maps_mutex_);
    mappings_.clear();
  }
  // The callbacks run once StarPU has let go of the memory: for a root
  // buffer that is after its storage is unregistered (the user may free a
  // USE_HOST_PTR region in them), and never before a sub-buffer goes.
  if (!callbacks.empty()) {
    cl_mem self = handle();
    if (parent) {
      for (auto it = callbacks.rbegin(); it != callbacks.rend(); ++it) it->first(self, it->second);
    } else {
      storage->after_release([self, callbacks = std::move(callbacks)] {
        for (auto it = callbacks.rbegin(); it != callbacks.rend(); ++it) it->first(self, it->second);
      });
    }
  }
  mirrors_.reset();  // the vendor images
  storage.reset();
  parent = {};
  context_ = {};
}

}  // namespace parasol::core
