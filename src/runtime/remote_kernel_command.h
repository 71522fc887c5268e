// clEnqueueNDRangeKernel on another rank's device: the node runs it
// (backend/cluster_link.h). When its dependencies are done, the command
// claims its buffers (no lease keeps them from main RAM), and the MPI layer
// sends their main-RAM copies to the node by StarPU-MPI, has the kernel
// built there run on the node's device, and receives the buffers it may
// have written back into their handles; then the event completes with the
// node's status, or with CL_DEVICE_NOT_AVAILABLE for a node that stopped
// answering. Every launch carries its buffers both ways: rank 0's handles
// stay the one place where a buffer's bytes are current between commands,
// so every other command (a read, a kernel on a local device) finds them
// where it always does.
#pragma once

#include "backend/worker_parking.h"
#include "core/kernel.h"
#include "runtime/command.h"
#include "runtime/data_leases.h"
#include "runtime/kernel_command.h"

namespace parasol::runtime {

class RemoteKernelCommand final : public Command {
 public:
  // device: another rank's device (its backend's remote_place()) that the
  // kernel was made on.
  RemoteKernelCommand(core::Kernel* kernel, core::KernelArgs args, const NDRange& range,
                      core::Device* device);

 private:
  void launch_task(core::Event& event) override;

  core::Ref<core::Kernel> kernel_;
  core::KernelArgs args_;  // its buffer arguments hold their buffers
  NDRange range_;
  core::Device* device_;
  DataClaim claim_;                // while the MPI layer holds the data
  backend::WorkerDemand demand_;  // likewise: StarPU's workers bring it to main RAM
};

}  // namespace parasol::runtime
