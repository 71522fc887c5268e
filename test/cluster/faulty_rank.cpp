// A rank that joins the MPI job but misbehaves. `silent`: it reports no
// device list, as a node whose vendor hangs at its start; it waits for rank
// 0's end message (cluster/protocol.h), then leaves. `garbage`: it sends
// bytes that are no device list instead, then waits likewise. `killed`: it
// dies at once (SIGKILL), as a node that crashed; run under mpirun
// --enable-recovery, so that mpirun leaves rank 0 running. `mute`: it lists
// this machine's devices and builds programs and makes kernels as
// parasol-node does, but never answers a launch, nor shows it is alive
// meanwhile, as a node stuck in a vendor's call. `dies`: as `mute`, but it
// dies (SIGKILL) when its first launch arrives, as a node that crashed
// mid-run; run under mpirun --enable-recovery.
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cluster/local_device_answers.h"
#include "cluster/node_commands.h"
#include "cluster/protocol.h"

namespace {

namespace cluster = parasol::cluster;

bool ended(MPI_Request& end) {
  int done = 0;
  MPI_Test(&end, &done, MPI_STATUS_IGNORE);
  return done;
}

void mute(int rank, MPI_Request& end, bool dies) {
  parasol::backend::RankDevices devices;
  devices.rank = rank;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  devices.host = host;
  std::string why;
  devices.devices = cluster::local_device_answers(why);
  std::vector<unsigned char> list = cluster::encode(devices);
  MPI_Send(list.data(), static_cast<int>(list.size()), MPI_BYTE, 0, cluster::kDevicesTag,
           MPI_COMM_WORLD);
  cluster::NodeCommands commands([](const std::vector<unsigned char>& reply) {
    MPI_Send(reply.data(), static_cast<int>(reply.size()), MPI_BYTE, 0, cluster::kReplyTag,
             MPI_COMM_WORLD);
  });
  while (!ended(end)) {
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(0, cluster::kRequestTag, MPI_COMM_WORLD, &arrived, &status);
    if (!arrived) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<unsigned char> request(static_cast<std::size_t>(count));
    MPI_Recv(request.data(), count, MPI_BYTE, 0, cluster::kRequestTag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    std::uint32_t op = 0;
    cluster::Reader(request).u32(op);
    if (static_cast<cluster::Op>(op) == cluster::Op::Launch) {
      if (dies) std::raise(SIGKILL);
      continue;  // never answered
    }
    commands.run(request);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* mode = argc > 1 ? argv[1] : "silent";
  if (std::strcmp(mode, "killed") == 0) std::raise(SIGKILL);
  if (std::strcmp(mode, "garbage") == 0) {
    const char junk[] = "not a device list";
    MPI_Send(junk, sizeof junk, MPI_BYTE, 0, cluster::kDevicesTag, MPI_COMM_WORLD);
  }
  MPI_Request end;
  MPI_Irecv(nullptr, 0, MPI_BYTE, 0, cluster::kEndTag, MPI_COMM_WORLD, &end);
  if (std::strcmp(mode, "mute") == 0 || std::strcmp(mode, "dies") == 0)
    mute(rank, end, std::strcmp(mode, "dies") == 0);
  while (!ended(end)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  MPI_Finalize();
  return 0;
}
