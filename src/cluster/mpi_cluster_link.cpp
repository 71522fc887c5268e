// Parasol's MPI layer (libParasolMPI.so): rank 0's side of the MPI job,
// behind backend::ClusterLink. Rank 0 never blocks on a node: it polls for
// device lists until its deadline, and its only sends are empty end
// messages, which MPI delivers without the node's help. MPI errors are
// returned, not fatal, so a node that died (mpirun --enable-recovery) is
// only a node that did not answer.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backend/cluster_link.h"
#include "cluster/protocol.h"

namespace parasol::cluster {
namespace {

using backend::RankDevices;

class MpiClusterLink final : public backend::ClusterLink {
 public:
  MpiClusterLink(int size, bool finalize) : size_(size), finalize_(finalize) {}

  int size() const override { return size_; }

  std::vector<RankDevices> gather(std::chrono::milliseconds timeout, std::vector<int>& silent,
                                  std::vector<std::string>& refused) override {
    std::set<int> waiting;
    for (int r = 1; r < size_; ++r) waiting.insert(r);
    std::vector<RankDevices> ranks;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!waiting.empty() && std::chrono::steady_clock::now() < deadline) {
      int arrived = 0;
      MPI_Status status;
      if (MPI_Iprobe(MPI_ANY_SOURCE, kDevicesTag, MPI_COMM_WORLD, &arrived, &status) !=
              MPI_SUCCESS ||
          !arrived) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      std::vector<unsigned char> bytes(static_cast<std::size_t>(std::max(count, 0)));
      const int source = status.MPI_SOURCE;
      const bool received = MPI_Recv(bytes.data(), count, MPI_BYTE, source, kDevicesTag,
                                     MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS;
      if (!waiting.erase(source)) continue;  // a rank answers once
      answered_.push_back(source);
      RankDevices devices;
      std::string why = "the message could not be received";
      if (received && decode(bytes, devices, why)) {
        devices.rank = source;
        ranks.push_back(std::move(devices));
      } else {
        refused.push_back("rank " + std::to_string(source) + " sent " + why +
                          ": its devices are left out");
      }
    }
    // A node waits for rank 0's word: those left behind are told now.
    for (int r : waiting) {
      silent.push_back(r);
      send_end(r);
    }
    std::sort(ranks.begin(), ranks.end(),
              [](const RankDevices& a, const RankDevices& b) { return a.rank < b.rank; });
    return ranks;
  }

  void end() override {
    for (int r : answered_) send_end(r);
    if (finalize_) MPI_Finalize();
  }

 private:
  // Empty: MPI sends it eagerly, whatever the node is doing.
  static void send_end(int rank) {
    MPI_Send(nullptr, 0, MPI_BYTE, rank, kEndTag, MPI_COMM_WORLD);
  }

  int size_;
  bool finalize_;  // MPI was initialised here, not by the application
  std::vector<int> answered_;
};

}  // namespace
}  // namespace parasol::cluster

extern "C" __attribute__((visibility("default"))) parasol::backend::ClusterLink*
parasol_open_cluster_link(std::string& why) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // Several threads of rank 0 may call MPI (the application's first
    // device query, the exit handler).
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
      why = "MPI_Init_thread failed";
      return nullptr;
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = -1, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) {
    why = "MPI says this process is rank " + std::to_string(rank);
    return nullptr;
  }
  return new parasol::cluster::MpiClusterLink(size, !initialized);
}
