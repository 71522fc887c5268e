// The seam between Parasol and its MPI layer. libParasol links no MPI: under
// mpirun, rank 0 opens the layer (libParasolMPI.so, beside libParasol) with
// dlopen and reaches it only through ClusterLink; without mpirun nothing of
// MPI is loaded. The layer and the node program (parasol-node) are built
// from src/cluster/ with the same compiler and library, so the C++ types
// below cross the seam as they are.
#pragma once

#include <CL/cl.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

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

// The MPI job as rank 0 sees it.
class ClusterLink {
 public:
  virtual ~ClusterLink() = default;
  virtual int size() const = 0;
  // Every other rank's devices, waiting at most `timeout` in all; `silent`
  // gets the ranks that had not answered by then (each is told to end at
  // once, so that it never waits for rank 0) and `refused` the ranks whose
  // answer could not be read (another Parasol's protocol), with why.
  virtual std::vector<RankDevices> gather(std::chrono::milliseconds timeout,
                                          std::vector<int>& silent,
                                          std::vector<std::string>& refused) = 0;
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
