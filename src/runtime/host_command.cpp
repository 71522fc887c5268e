#include "runtime/host_command.h"

#include <algorithm>
#include <cstring>

#include "runtime/trace.h"

namespace parasol::runtime {

HostCommand::HostCommand(std::vector<HostAccess> accesses, std::function<cl_int()> body,
                         std::size_t bytes)
    : accesses_(std::move(accesses)), body_(std::move(body)), bytes_(bytes) {
  // One acquire per StarPU handle (sub-buffers share their parent's), in
  // address order so two commands never wait on each other's half.
  for (const auto& a : accesses_) {
    starpu_data_handle_t h = a.buffer->storage().handle();
    auto it = std::find_if(acquires_.begin(), acquires_.end(),
                           [h](const Acquire& x) { return x.handle == h; });
    if (it == acquires_.end())
      acquires_.push_back({h, a.mode});
    else
      it->mode = static_cast<starpu_data_access_mode>(it->mode | a.mode);
  }
  std::sort(acquires_.begin(), acquires_.end(),
            [](const Acquire& a, const Acquire& b) { return a.handle < b.handle; });
}

void HostCommand::launch(core::Event& event) {
  event_ = &event;
  acquire_next();
}

void HostCommand::acquire_next() {
  if (next_ < acquires_.size()) {
    const Acquire& a = acquires_[next_++];
    starpu_data_acquire_on_node_cb(a.handle, STARPU_MAIN_RAM, a.mode, &HostCommand::on_acquired,
                                   this);
    return;
  }
  event_->set_running();
  cl_int status = body_();
  for (const Acquire& a : acquires_) starpu_data_release_on_node(a.handle, STARPU_MAIN_RAM);
  if (trace::enabled()) trace::record(*event_, nullptr, bytes_, status);
  event_->complete(status);  // may destroy this command: nothing after
}

void HostCommand::on_acquired(void* self) { static_cast<HostCommand*>(self)->acquire_next(); }

void copy_rect(std::byte* dst, const RectRegion& d, const std::byte* src, const RectRegion& s,
               const std::size_t region[3]) {
  for (std::size_t z = 0; z < region[2]; ++z)
    for (std::size_t y = 0; y < region[1]; ++y) {
      std::byte* to = dst + (d.origin[2] + z) * d.slice_pitch + (d.origin[1] + y) * d.row_pitch +
                      d.origin[0];
      const std::byte* from = src + (s.origin[2] + z) * s.slice_pitch +
                              (s.origin[1] + y) * s.row_pitch + s.origin[0];
      std::memmove(to, from, region[0]);
    }
}

}  // namespace parasol::runtime
