// clEnqueueNativeKernel on the native CPU device: the user's host function
// runs on the native device's StarPU CPU worker, as one task of the same
// graph as every other command. The buffers of mem_list are the task's data
// accesses; their main-RAM addresses are patched into a private copy of the
// args block where the application stored their cl_mem handles.
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/task_command.h"

namespace parasol::runtime {

class NativeKernelCommand final : public TaskCommand {
 public:
  using UserFn = void(CL_CALLBACK*)(void*);
  // args: a copy of the application's args block; offsets[i]: where, in it,
  // the address of buffers[i] goes (args_mem_loc[i] - args).
  NativeKernelCommand(core::Device* native_device, UserFn fn, std::vector<std::byte> args,
                      std::vector<core::Ref<core::Buffer>> buffers,
                      std::vector<std::size_t> offsets);
  cl_int execute(void* buffers[], core::Device& device, const VendorPlace& place,
                 cl_event* done) override;
  cl_int execute_on_host(void* buffers[], core::Device& device) override;
  bool can_run_on(const core::Device& device) const override {
    return device.worker().traits.runs_host_functions;
  }

 protected:
  const char* name() const override { return "native_kernel"; }

 private:
  UserFn fn_;
  std::vector<std::byte> args_;
  std::vector<core::Ref<core::Buffer>> buffers_;
  std::vector<std::size_t> offsets_;
  std::vector<std::size_t> buffer_index_;  // per buffer, into buffers[]
};

}  // namespace parasol::runtime
