// clEnqueueMigrateMemObjects to a device: a task that only moves data.
#pragma once

#include <vector>

#include "runtime/task_command.h"

namespace parasol::runtime {

class MigrateCommand final : public TaskCommand {
 public:
  MigrateCommand(core::Device* device, std::vector<core::Ref<core::Buffer>> buffers,
                 bool content_undefined);
  cl_int execute(void* buffers[], core::Device& device, const VendorPlace& place,
                 cl_event* done) override;
  cl_int execute_on_host(void*[], core::Device&) override { return CL_COMPLETE; }
  std::size_t bytes() const override;

 protected:
  const char* name() const override { return "migrate"; }

 private:
  std::vector<core::Ref<core::Buffer>> buffers_;
  bool content_undefined_;
};

}  // namespace parasol::runtime
