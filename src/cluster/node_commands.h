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
#include <map>
#include <span>
#include <string>
#include <vector>

#include "cluster/protocol.h"

namespace parasol::cluster {

class NodeCommands {
 public:
  // Over the Parasol platform's devices as listed to rank 0; ok() false
  // (with why) when there is no context to be had.
  NodeCommands();
  ~NodeCommands();
  NodeCommands(const NodeCommands&) = delete;
  NodeCommands& operator=(const NodeCommands&) = delete;
  bool ok() const { return context_ != nullptr; }
  const std::string& why() const { return why_; }

  // Runs one request; its reply (empty: none) to send to rank 0. Blocks
  // while StarPU-MPI moves a launch's buffers and the kernel runs.
  std::vector<unsigned char> run(std::span<const unsigned char> request);
  // After a launch's reply has gone: sends the buffers it wrote back to
  // rank 0 (StarPU-MPI), waiting until they have left.
  void send_results();

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
  // The storage's copy here, made on first use; null if it cannot be.
  Storage* storage(std::uint64_t id, std::size_t size);
  void release_storage(std::uint64_t id);

  std::string why_;
  cl_context context_ = nullptr;
  std::vector<cl_device_id> devices_;
  std::vector<cl_command_queue> queues_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, cl_program> programs_;
  std::map<std::uint64_t, cl_kernel> kernels_;
  std::map<std::uint64_t, Storage> storages_;
  std::vector<std::pair<starpu_data_handle_t, std::int64_t>> sent_after_reply_;
  bool mpi_started_ = false;
};

}  // namespace parasol::cluster
