// The seam between Parasol and its MPI layer. libParasol links no MPI: under
// mpirun, rank 0 opens the layer (libParasolMPI.so, beside libParasol) with
// dlopen and reaches it only through ClusterLink; without mpirun nothing of
// MPI is loaded. The layer and the node program (parasol-node) are built
// from src/cluster/ with the same compiler and library, so the C++ types
// below cross the seam as they are.
#pragma once

#include <CL/cl.h>
#include <starpu.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "backend/kernel_signature.h"

namespace parasol::backend {

// One device of another rank: its node's Parasol answers to clGetDeviceInfo,
// each query's bytes as that Parasol gave them (handles left out: they mean
// nothing here).
struct DeviceAnswers {
  std::vector<std::pair<cl_device_info, std::vector<unsigned char>>> answers;

  // The answer to `param`, or null when the node's device gave none.
  const std::vector<unsigned char>* find(cl_device_info param) const {
    for (const auto& [p, bytes] : answers)
      if (p == param) return &bytes;
    return nullptr;
  }
};

// What one node rank reported of itself.
struct RankDevices {
  int rank = -1;
  std::string host;
  std::vector<DeviceAnswers> devices;
};

// Where a remote device is: its rank, and its place in its node's list.
struct RemotePlace {
  int rank = -1;
  std::uint32_t device = 0;
};

// A program built on a node's device (ClusterLink::build()).
struct RemoteBuild {
  bool ok = false;
  std::string log;
  std::uint64_t id = 0;  // the node's program, while it lives
  std::vector<std::string> kernels;
};

// A kernel made on a node (ClusterLink::create_kernel()), with what its
// vendor answers about its work-groups there.
struct RemoteKernelInfo {
  cl_int err = CL_SUCCESS;
  std::uint64_t id = 0;
  std::size_t work_group_size = 0;  // CL_KERNEL_WORK_GROUP_SIZE
  std::array<std::size_t, 3> reqd{0, 0, 0};  // CL_KERNEL_COMPILE_WORK_GROUP_SIZE
  std::size_t preferred_multiple = 1;         // CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
  cl_ulong private_mem = 0;                   // CL_KERNEL_PRIVATE_MEM_SIZE
  cl_ulong local_mem = 0;  // CL_KERNEL_LOCAL_MEM_SIZE with no __local argument set
  // As the node's platform answers clGetKernelArgInfo: rank 0 reads the
  // arguments from them where its own front end did not (no native device).
  std::vector<KernelArgInfo> args;
};

// One argument of a launch on a remote device.
struct RemoteArg {
  enum class Kind : std::uint32_t { Value, Buffer, Local, NullBuffer } kind = Kind::Value;
  std::vector<unsigned char> bytes;  // Value
  std::size_t local_size = 0;        // Local
  // Buffer: the StarPU handle of its storage (main RAM copy sent to the
  // node before the launch, and received back after it when `written`), the
  // storage's identity for the node's copy, its size, and the sub-buffer's
  // window in it.
  starpu_data_handle_t handle = nullptr;
  std::uint64_t storage = 0;
  std::size_t storage_size = 0;
  std::size_t offset = 0, size = 0;
  bool written = false;
};

// One clEnqueueNDRangeKernel on a remote device.
struct RemoteLaunch {
  RemotePlace place;
  std::uint64_t kernel = 0;
  cl_uint work_dim = 1;
  std::array<std::size_t, 3> offset{0, 0, 0}, global{1, 1, 1}, local{0, 0, 0};
  std::vector<RemoteArg> args;
};

// The MPI job as rank 0 sees it.
class ClusterLink {
 public:
  virtual ~ClusterLink() = default;
  virtual int size() const = 0;

  // Whether the nodes' devices take commands: every rank of the job
  // answered, and StarPU-MPI started.
  virtual bool carries_commands() const = 0;
  // Commands on a node's devices. Each waits at most the cluster timeout
  // for its node; a node that does not answer in time is given up (its
  // later commands fail at once, logged).
  // Builds `source` with `options` on the device; false when the node did
  // not answer (build.log says so).
  virtual bool build(const RemotePlace& place, const std::string& source,
                     const std::string& options, RemoteBuild& build) = 0;
  virtual RemoteKernelInfo create_kernel(const RemotePlace& place, std::uint64_t program,
                                         const std::string& name) = 0;
  // The node's program or kernel `id` is no longer used.
  virtual void release_program(int rank, std::uint64_t id) = 0;
  virtual void release_kernel(int rank, std::uint64_t id) = 0;
  // The node's copy of a buffer's storage is no longer needed.
  virtual void release_storage(std::uint64_t storage) = 0;
  // Runs the launch: its buffers' main-RAM copies go to the node by
  // StarPU-MPI, the kernel runs there, the buffers it may write come back
  // by StarPU-MPI into their handles; then done(status, why) is called
  // once, from the layer's own thread or at once (CL_COMPLETE; the node's
  // error; or CL_DEVICE_NOT_AVAILABLE, why saying so, for a node that did
  // not answer within the timeout or was given up before).
  // The caller keeps the handles valid and unaccessed by others in a
  // conflicting mode until then.
  virtual void launch(RemoteLaunch launch, std::function<void(cl_int, const std::string&)> done) = 0;
  // Every other rank's devices, waiting at most `timeout` in all; `silent`
  // gets the ranks that had not answered by then (each is told to end at
  // once, so that it never waits for rank 0) and `refused` the ranks whose
  // answer could not be read (another Parasol's protocol), with why.
  virtual std::vector<RankDevices> gather(std::chrono::milliseconds timeout,
                                          std::vector<int>& silent,
                                          std::vector<std::string>& refused) = 0;
  // Stops StarPU-MPI, before StarPU stops (commands in flight are given
  // up: their done() is called with CL_DEVICE_NOT_AVAILABLE).
  virtual void stop_commands() = 0;
  // Tells every node that answered to end, then leaves MPI: rank 0's last
  // MPI call, at the process's exit.
  virtual void end() = 0;
};

// The layer's one exported function: joins the MPI job as rank 0, or
// returns null with `why` set.
using OpenClusterLink = ClusterLink* (*)(std::string& why);
inline constexpr const char* kOpenClusterLinkSymbol = "parasol_open_cluster_link";
inline constexpr const char* kClusterLayerFile = "libParasolMPI.so";

}  // namespace parasol::backend
