#include "backend/cluster.h"

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>

#include "util/log.h"
#include "util/settings.h"

namespace parasol::backend {
namespace {

ClusterLink* g_link = nullptr;  // kept to the end: MPI is left at exit
std::atomic<bool> g_joined{false};

// The layer lies beside the library this function is in (libParasol, in the
// build tree as once installed).
std::string layer_path() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&join_cluster), &info) || !info.dli_fname) return {};
  std::string path = info.dli_fname;
  const auto slash = path.rfind('/');
  return (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) +
         kClusterLayerFile;
}

ClusterLink* open_link() {
  const std::string path = layer_path();
  // Never closed: MPI's own libraries stay loaded until the process ends.
  void* layer = path.empty() ? nullptr : dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!layer) {
    log::error("this process is rank 0 of an MPI job, but Parasol's MPI layer ", path,
               " could not be loaded (", path.empty() ? "no path" : dlerror(),
               "): the other ranks' devices are not listed, and parasol-node on them waits "
               "for rank 0 until mpirun is interrupted");
    return nullptr;
  }
  auto open = reinterpret_cast<OpenClusterLink>(dlsym(layer, kOpenClusterLinkSymbol));
  std::string why;
  ClusterLink* link = open ? open(why) : nullptr;
  if (!link)
    log::error("Parasol could not join the MPI job as rank 0 (",
               open ? why : std::string("the layer has no ") + kOpenClusterLinkSymbol,
               "): the other ranks' devices are not listed");
  return link;
}

std::vector<RankDevices> gather() {
  g_joined.store(true);
  const settings::MpiPlace place = settings::mpi_place();
  if (place.size <= 1) return {};
  if (place.rank != 0) {
    log::info("rank ", place.rank, " of an MPI job: Parasol lists this machine's devices only");
    return {};
  }
  g_link = open_link();
  if (!g_link) return {};

  const double timeout_s = settings::cluster_timeout_s();
  std::vector<int> silent;
  std::vector<std::string> refused;
  std::vector<RankDevices> ranks = g_link->gather(
      std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000)), silent, refused);
  for (int rank : silent)
    log::error("rank ", rank, " did not report its devices within ", timeout_s,
               " s (PARASOL_CLUSTER_TIMEOUT): its devices are left out");
  for (const std::string& why : refused) log::error(why);
  for (const RankDevices& r : ranks)
    log::info("rank ", r.rank, " on ", r.host, ": ", r.devices.size(), " devices");
  return ranks;
}

}  // namespace

const std::vector<RankDevices>& join_cluster() {
  static const std::vector<RankDevices> ranks = gather();
  return ranks;
}

ClusterLink* cluster_link() { return g_joined.load() ? g_link : nullptr; }

void stop_cluster_commands() {
  if (g_link) g_link->stop_commands();
}

namespace {

// The nodes wait in MPI_Init until rank 0 joins: a process that loads
// Parasol but never lists its devices (a loader that does not ask for them,
// StarPU failing to start) still joins, at its exit, and ends them.
// Registered when libParasol is loaded, so it runs after every other exit
// handler of Parasol's (StarPU's shutdown included).
void leave_cluster() {
  if (!g_joined.load()) join_cluster();
  if (g_link) g_link->end();
}

const bool kLeavesAtExit = [] {
  const settings::MpiPlace place = settings::mpi_place();
  if (place.size > 1 && place.rank == 0) std::atexit(&leave_cluster);
  return true;
}();

}  // namespace

}  // namespace parasol::backend
