// A node's side of the commands rank 0 runs on its devices
// (cluster/protocol.h): programs built, kernels made and launched on this
// machine's Parasol devices through the ICD loader, as any application does,
// in one context over all of them. A buffer's copy here is a Parasol buffer
// of that context beside a StarPU handle over its main-RAM staging, which
// StarPU-MPI fills from rank 0's handle before a launch and sends back from
// after it.
#pragma once

#include <CL/cl.h>
#include <starpu.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <type_traits>
#include <span>
#include <string>
#include <vector>

#include "cluster/protocol.h"
#include "cluster/staged_bytes.h"

namespace parasol::cluster {

// An OpenCL handle released once, with its owner.
template <typename T, cl_int (*Release)(T)>
struct Releaser {
  void operator()(T h) const { Release(h); }
};
template <typename T, cl_int (*Release)(T)>
using Owned = std::unique_ptr<std::remove_pointer_t<T>, Releaser<T, Release>>;
using OwnedContext = Owned<cl_context, &clReleaseContext>;
using OwnedQueue = Owned<cl_command_queue, &clReleaseCommandQueue>;
using OwnedProgram = Owned<cl_program, &clReleaseProgram>;
using OwnedKernel = Owned<cl_kernel, &clReleaseKernel>;
using OwnedMem = Owned<cl_mem, &clReleaseMemObject>;
using OwnedEvent = Owned<cl_event, &clReleaseEvent>;

class NodeCommands {
 public:
  // Sends one reply to rank 0 (kReplyTag).
  using Reply = std::function<void(const std::vector<unsigned char>&)>;
  // Over the Parasol platform's devices as listed to rank 0; ok() false
  // (with why) when there is no context to be had.
  explicit NodeCommands(Reply reply);
  NodeCommands(const NodeCommands&) = delete;
  NodeCommands& operator=(const NodeCommands&) = delete;
  bool ok() const { return context_ != nullptr; }
  const std::string& why() const { return why_; }

  // Runs one request, sending its replies. Blocks while StarPU-MPI moves
  // a launch's buffers and the kernel runs. A launch is answered twice:
  // CL_SUBMITTED once its buffers' receives are posted (rank 0 sends them
  // only then: a node that never got that far holds none of rank 0's
  // transfers), then its status, followed by the buffers it wrote.
  void run(std::span<const unsigned char> request);

 private:
  // A buffer's storage on rank 0, copied here: the device's buffer and
  // the staging StarPU-MPI fills and sends.
  struct Storage {
    explicit Storage(std::size_t size) : staging(size) {}
    OwnedMem mem;
    StagedBytes staging;
    std::size_t size() const { return staging.bytes.size(); }
  };
  void build(Reader& in, Writer& out);
  void create_kernel(Reader& in, Writer& out);
  void launch(Reader& in, Writer& out);
  void send(Writer& out) { reply_(out.out()); }
  // The storage's copy here, made on first use; null if it cannot be.
  Storage* storage(std::uint64_t id, std::size_t size);

  Reply reply_;
  std::string why_;
  std::vector<cl_device_id> devices_;
  OwnedContext context_;
  std::vector<OwnedQueue> queues_;
  std::uint64_t next_id_ = 1;
  // Each program with the one device it was built for.
  std::map<std::uint64_t, std::pair<OwnedProgram, cl_device_id>> programs_;
  std::map<std::uint64_t, OwnedKernel> kernels_;
  // Declared last: released first (each storage's StarPU handle before
  // the context).
  std::map<std::uint64_t, std::unique_ptr<Storage>> storages_;
  bool mpi_started_ = false;
};

}  // namespace parasol::cluster
