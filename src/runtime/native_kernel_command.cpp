#include "runtime/native_kernel_command.h"

#include <cstring>

#include "util/log.h"

namespace parasol::runtime {

NativeKernelCommand::NativeKernelCommand(core::Device* native_device, UserFn fn,
                                         std::vector<std::byte> args,
                                         std::vector<core::Ref<core::Buffer>> buffers,
                                         std::vector<std::size_t> offsets)
    : TaskCommand(native_device, 0), fn_(fn), args_(std::move(args)),
      buffers_(std::move(buffers)), offsets_(std::move(offsets)) {
  // The function may read and write every buffer it is given.
  for (const auto& b : buffers_) buffer_index_.push_back(access(*b, STARPU_RW));
}

cl_int NativeKernelCommand::execute(void*[], core::Device& device, const VendorPlace&, cl_event*) {
  // Never reached: the command is pinned to the native device (icd/ checks).
  log::error("native kernel scheduled on vendor device ", device.name());
  return CL_INVALID_OPERATION;
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
