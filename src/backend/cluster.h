// Rank 0 of an MPI job: the other ranks' devices. Under mpirun (Open MPI's
// OMPI_COMM_WORLD_* variables, util/settings.h) with several ranks, rank 0's
// Parasol opens its MPI layer (cluster_link.h) at its start, joins the job
// and collects what each node (parasol-node) reports of its devices. In any
// other process, and on the other ranks, nothing of MPI is loaded.
#pragma once

#include <vector>

#include "backend/cluster_link.h"

namespace parasol::backend {

// The other ranks' devices, once, on Parasol's start; empty outside rank 0
// of a job of several ranks, and when the layer cannot be loaded or no rank
// answered (logged). Rank 0 stays in the job until the process exits, when
// it tells the nodes to end.
const std::vector<RankDevices>& join_cluster();

// The MPI layer, once joined; null outside rank 0 of a job, or when it
// could not be loaded.
ClusterLink* cluster_link();

// Before StarPU stops: the layer's StarPU-MPI stops (commands in flight on
// other ranks fail).
void stop_cluster_commands();

}  // namespace parasol::backend
