// What crosses the network between rank 0 and the nodes (parasol-node), and
// how. Each node sends rank 0 one message, its device list (kDevicesTag);
// rank 0 sends each node one empty message, end (kEndTag), when it gives up
// waiting for the node or at its own exit. A device list is the node's
// host name and, per device, every clGetDeviceInfo answer its Parasol gave
// (local_device_answers.h), in the host's byte order (every rank of a job
// runs on one architecture).
//
// Commands on a node's devices: rank 0 sends a request (kRequestTag, an Op
// and its fields, written with Writer), the node answers the ones that need
// it (kReplyTag, the request's id first) and, while it has work, sends an
// empty reply of id 0 every kHeartbeatMs to show it is alive. Buffer bytes
// never travel in these messages: StarPU-MPI moves them, between the
// buffer's StarPU handle on rank 0 and the node's handle of its copy, with
// the tags the launch request names.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backend/cluster_link.h"

namespace parasol::cluster {

inline constexpr int kDevicesTag = 0x5041;
inline constexpr int kEndTag = 0x5042;
inline constexpr int kRequestTag = 0x5043;
inline constexpr int kReplyTag = 0x5044;
inline constexpr int kHeartbeatMs = 250;

enum class Op : std::uint32_t {
  // StarPU-MPI starts on the node (every rank of the job answered), or
  // stops: its shutdown is collective over the job, rank 0's included.
  Start = 1,
  Stop,
  // id, device, source, options -> ok, log, program, kernel names
  Build,
  // id, program, name -> err, kernel, work-group size, reqd[3], preferred
  // work-group size multiple, private memory, __local memory of its own,
  // arguments (count, then each one's address, access and type qualifiers,
  // type name and name)
  CreateKernel,
  ReleaseProgram,  // program
  ReleaseKernel,   // kernel
  ReleaseStorage,  // storage
  // id, device, kernel, work_dim, offset[3], global[3], local[3], args
  // (kind, then a value's bytes, a __local size, or a buffer's storage,
  // storage size, offset, size, written, tag in, tag out) -> status
  Launch,
};

// A message being written: fixed-size fields in the host's byte order,
// byte strings with their length first.
class Writer {
 public:
  Writer& u32(std::uint32_t v) { return raw(&v, sizeof v); }
  Writer& u64(std::uint64_t v) { return raw(&v, sizeof v); }
  Writer& i64(std::int64_t v) { return raw(&v, sizeof v); }
  Writer& bytes(const void* data, std::size_t n);
  Writer& str(const std::string& s) { return bytes(s.data(), s.size()); }
  std::vector<unsigned char>& out() { return out_; }

 private:
  Writer& raw(const void* data, std::size_t n);
  std::vector<unsigned char> out_;
};

// Reads what a Writer wrote; every read is bounded by the message's size,
// and a read past it fails (ok() false) without reading anything.
class Reader {
 public:
  explicit Reader(std::span<const unsigned char> bytes) : bytes_(bytes) {}
  bool u32(std::uint32_t& v) { return raw(&v, sizeof v); }
  bool u64(std::uint64_t& v) { return raw(&v, sizeof v); }
  bool i64(std::int64_t& v) { return raw(&v, sizeof v); }
  bool bytes(std::vector<unsigned char>& out);
  bool str(std::string& out);
  bool done() const { return ok_ && at_ == bytes_.size(); }
  bool ok() const { return ok_; }

 private:
  bool raw(void* v, std::size_t n);
  std::span<const unsigned char> bytes_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

// Before MPI_Init, on rank 0 and the nodes: MPI_Finalize does not begin with
// Open MPI's fence of the whole job (MCA parameter async_mpi_finalize; a
// user's own OMPI_MCA_async_mpi_finalize wins). Under mpirun
// --enable-recovery a rank that died never joins that fence, and Open MPI
// 4.1 then sometimes waits in it for ever. Nothing crosses between Parasol's
// ranks after rank 0's end message, so no rank needs the fence.
void skip_finalize_fence();

// A node's device list; its rank is the message's source.
std::vector<unsigned char> encode(const backend::RankDevices& devices);
// False, with why, for bytes that are not a device list of this protocol
// version (a node of another Parasol).
bool decode(std::span<const unsigned char> bytes, backend::RankDevices& devices,
            std::string& why);

}  // namespace parasol::cluster
