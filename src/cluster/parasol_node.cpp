// parasol-node: Parasol's program for the ranks other than 0 of an MPI job
// (`mpirun -np 1 ./app : -np N parasol-node`). It reports this machine's
// Parasol devices to rank 0 (cluster/protocol.h) and stays in the job until
// rank 0 says end.
//
// MPI comes first: rank 0's MPI_Init waits for every rank's, and Parasol's
// start here (StarPU, vendors, a first bus calibration) may take long. The
// devices are read on a thread of their own, so that a vendor stuck in its
// start keeps no one waiting: rank 0 gives up after its timeout and says
// end, and the node leaves then. While waiting, the node polls with sleeps:
// MPI's blocking waits would spin a core for the whole run.
#include <mpi.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cluster/local_device_answers.h"
#include "cluster/protocol.h"

namespace {

namespace backend = parasol::backend;
namespace cluster = parasol::cluster;

std::string host_name() {
  char name[256] = "";
  gethostname(name, sizeof name - 1);
  return name;
}

bool test(MPI_Request& request) {
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  return done;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "[parasol-node] MPI_Init_thread failed\n");
    return 1;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::fprintf(stderr,
                 "[parasol-node] runs on the ranks after the application's: "
                 "mpirun -np 1 ./app : -np N parasol-node\n");
    MPI_Finalize();
    return 2;
  }

  MPI_Request end;
  MPI_Irecv(nullptr, 0, MPI_BYTE, 0, cluster::kEndTag, MPI_COMM_WORLD, &end);

  std::vector<unsigned char> message;
  std::atomic<bool> read{false};
  std::thread reader([&] {
    backend::RankDevices devices;
    devices.rank = rank;
    devices.host = host_name();
    std::string why;
    devices.devices = cluster::local_device_answers(why);
    if (devices.devices.empty())
      std::fprintf(stderr, "[parasol-node] rank %d on %s: %s; it reports no device\n", rank,
                   devices.host.c_str(), why.c_str());
    message = cluster::encode(devices);
    read.store(true, std::memory_order_release);
  });

  MPI_Request sent = MPI_REQUEST_NULL;
  bool sending = false;
  while (!test(end)) {
    if (!sending && read.load(std::memory_order_acquire)) {
      MPI_Isend(message.data(), static_cast<int>(message.size()), MPI_BYTE, 0,
                cluster::kDevicesTag, MPI_COMM_WORLD, &sent);
      sending = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(sending ? 20 : 2));
  }
  // Rank 0 took the list, or gave up on it: a send it will never receive
  // completes no more.
  if (sending && !test(sent)) MPI_Request_free(&sent);
  const bool stuck = !read.load(std::memory_order_acquire);
  if (stuck) {
    std::fprintf(stderr,
                 "[parasol-node] rank %d: rank 0 stopped waiting before Parasol listed this "
                 "machine's devices\n",
                 rank);
    reader.detach();
  } else {
    reader.join();
  }
  MPI_Finalize();
  // A reader still inside a vendor's start must not hold the exit back.
  if (stuck) std::_Exit(0);
  return 0;
}
