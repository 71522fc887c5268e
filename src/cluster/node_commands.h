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
#include <span>
#include <string>
#include <vector>

#include "cluster/protocol.h"

namespace parasol::cluster {

class NodeCommands {
 public:
  // Sends one reply to rank 0 (kReplyTag).
  using Reply = std::function<void(const std::vector<unsigned char>&)>;
  // Over the Parasol platform's devices as listed to rank 0; ok() false
  // (with why) when there is no context to be had.
  explicit NodeCommands(Reply reply);
  ~NodeCommands();
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
  struct Storage {
    cl_mem mem = nullptr;
    std::vector<std::byte> staging;
    starpu_data_handle_t handle = nullptr;
    std::size_t size = 0;
  };
  void build(Reader& in, Writer& out);
  void create_kernel(Reader& in, Writer& out);
  void launch(Reader& in, Writer& out);
  void send(Writer& out) { reply_(out.out()); }
  // The storage's copy here, made on first use; null if it cannot be.
  Storage* storage(std::uint64_t id, std::size_t size);
  void release_storage(std::uint64_t id);

  Reply reply_;
  std::string why_;
  cl_context context_ = nullptr;
  std::vector<cl_device_id> devices_;
  std::vector<cl_command_queue> queues_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, cl_program> programs_;
  std::map<std::uint64_t, cl_kernel> kernels_;
  std::map<std::uint64_t, Storage> storages_;
  bool mpi_started_ = false;
};

}  // namespace parasol::cluster
