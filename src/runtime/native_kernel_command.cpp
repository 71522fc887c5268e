#include "runtime/native_kernel_command.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "backend/vendor_lock.h"
#include "util/error_name.h"
#include "util/log.h"

namespace parasol::runtime {

NativeKernelCommand::NativeKernelCommand(core::Device* device, UserFn fn,
                                         std::vector<std::byte> args,
                                         std::vector<core::Ref<core::Buffer>> buffers,
                                         std::vector<std::size_t> offsets)
    : TaskCommand(device, 0), fn_(fn), args_(std::move(args)),
      buffers_(std::move(buffers)), offsets_(std::move(offsets)) {
  // The function may read and write every buffer it is given.
  for (const auto& b : buffers_) buffer_index_.push_back(access(*b, STARPU_RW));
}

namespace {

// The block handed to a vendor's clEnqueueNativeKernel for the application's
// function: a header, one Patch per buffer, then the application's own
// block at user_at. The vendor writes each whole vendor buffer's host
// address where the application stored its cl_mem; the trampoline adds the
// buffer's offset in that vendor buffer (a Parasol sub-buffer's origin,
// StarPU's own offset) and calls the application's function. Vendor
// sub-buffers would spare the offsets, but PoCL passes a sub-buffer's
// parent address to native kernels.
struct TrampolineHeader {
  NativeKernelCommand::UserFn fn;
  std::uint32_t patches;
  std::uint32_t user_at;
  std::size_t user_size;
};
struct Patch {
  std::size_t at;   // in the block
  std::size_t add;  // bytes past the vendor buffer's start
};

void CL_CALLBACK trampoline(void* block) {
  auto* b = static_cast<std::byte*>(block);
  TrampolineHeader h;
  std::memcpy(&h, b, sizeof h);
  for (std::uint32_t i = 0; i < h.patches; ++i) {
    Patch p;
    std::memcpy(&p, b + sizeof h + i * sizeof p, sizeof p);
    std::byte* address = nullptr;
    std::memcpy(&address, b + p.at, sizeof address);
    address += p.add;
    std::memcpy(b + p.at, &address, sizeof address);
  }
  h.fn(h.user_size ? b + h.user_at : nullptr);
}

}  // namespace

cl_int NativeKernelCommand::execute(void* buffers[], core::Device& device,
                                    const VendorPlace& place, cl_event* done) {
  constexpr std::size_t kAlign = alignof(std::max_align_t);
  const std::size_t patches_end = sizeof(TrampolineHeader) + buffers_.size() * sizeof(Patch);
  const std::size_t user_at = (patches_end + kAlign - 1) / kAlign * kAlign;
  std::vector<std::byte> block(user_at + args_.size());
  const TrampolineHeader header{fn_, static_cast<std::uint32_t>(buffers_.size()),
                                static_cast<std::uint32_t>(user_at), args_.size()};
  std::memcpy(block.data(), &header, sizeof header);
  if (!args_.empty()) std::memcpy(block.data() + user_at, args_.data(), args_.size());
  std::vector<cl_mem> mems;
  std::vector<const void*> locations;
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    void* iface = buffers[buffer_index_[i]];
    cl_mem mem = reinterpret_cast<cl_mem>(STARPU_VARIABLE_GET_DEV_HANDLE(iface));
    const Patch patch{user_at + offsets_[i],
                      STARPU_VARIABLE_GET_OFFSET(iface) + buffers_[i]->origin()};
    std::memcpy(block.data() + sizeof header + i * sizeof patch, &patch, sizeof patch);
    std::memcpy(block.data() + patch.at, &mem, sizeof mem);
    mems.push_back(mem);
    locations.push_back(block.data() + patch.at);
  }
  backend::VendorLock lock = backend::lock_vendor(device.worker());
  const cl_int err = clEnqueueNativeKernel(
      place.queue, &trampoline, block.data(), block.size(), static_cast<cl_uint>(mems.size()),
      mems.empty() ? nullptr : mems.data(), locations.empty() ? nullptr : locations.data(),
      static_cast<cl_uint>(place.waits.size()),
      place.waits.empty() ? nullptr : place.waits.data(), done);
  if (err != CL_SUCCESS)
    log::error("native kernel on ", device.label(), ": the vendor refused it: ", error_name(err),
               " (", err, ")");
  return err;
}

cl_int NativeKernelCommand::execute_on_host(void* buffers[], core::Device&) {
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    auto* base = reinterpret_cast<std::byte*>(STARPU_VARIABLE_GET_PTR(buffers[buffer_index_[i]]));
    void* address = base + buffers_[i]->origin();
    std::memcpy(args_.data() + offsets_[i], &address, sizeof address);
  }
  fn_(args_.empty() ? nullptr : args_.data());
  return CL_COMPLETE;
}

}  // namespace parasol::runtime
