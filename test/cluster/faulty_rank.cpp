// A rank that joins the MPI job but never reports devices. `silent`: as a
// node whose vendor hangs at its start, it waits for rank 0's end message
// (cluster/protocol.h), then leaves. `killed`: it dies at once (SIGKILL),
// as a node that crashed; run under mpirun --enable-recovery, so that
// mpirun leaves rank 0 running.
#include <mpi.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

#include "cluster/protocol.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1 && std::strcmp(argv[1], "killed") == 0) std::raise(SIGKILL);
  MPI_Request end;
  MPI_Irecv(nullptr, 0, MPI_BYTE, 0, parasol::cluster::kEndTag, MPI_COMM_WORLD, &end);
  for (int done = 0; !done; std::this_thread::sleep_for(std::chrono::milliseconds(10)))
    MPI_Test(&end, &done, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
