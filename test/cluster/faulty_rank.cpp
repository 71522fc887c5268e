// A rank that joins the MPI job but reports no device list. `silent`: as a
// node whose vendor hangs at its start, it waits for rank 0's end message
// (cluster/protocol.h), then leaves. `garbage`: it sends bytes that are no
// device list instead, then waits likewise. `killed`: it dies at once
// (SIGKILL), as a node that crashed; run under mpirun --enable-recovery, so
// that mpirun leaves rank 0 running.
#include <mpi.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

#include "cluster/protocol.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* mode = argc > 1 ? argv[1] : "silent";
  if (std::strcmp(mode, "killed") == 0) std::raise(SIGKILL);
  if (std::strcmp(mode, "garbage") == 0) {
    const char junk[] = "not a device list";
    MPI_Send(junk, sizeof junk, MPI_BYTE, 0, parasol::cluster::kDevicesTag, MPI_COMM_WORLD);
  }
  MPI_Request end;
  MPI_Irecv(nullptr, 0, MPI_BYTE, 0, parasol::cluster::kEndTag, MPI_COMM_WORLD, &end);
  for (int done = 0; !done; std::this_thread::sleep_for(std::chrono::milliseconds(10)))
    MPI_Test(&end, &done, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
