// What crosses the network between rank 0 and the nodes (parasol-node), and
// how. Each node sends rank 0 one message, its device list (kDevicesTag);
// rank 0 sends each node one empty message, end (kEndTag), when it gives up
// waiting for the node or at its own exit. A device list is the node's
// host name and, per device, every clGetDeviceInfo answer its Parasol gave
// (local_device_answers.h), in the host's byte order (every rank of a job
// runs on one architecture).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backend/cluster_link.h"

namespace parasol::cluster {

inline constexpr int kDevicesTag = 0x5041;
inline constexpr int kEndTag = 0x5042;

// A node's device list; its rank is the message's source.
std::vector<unsigned char> encode(const backend::RankDevices& devices);
// False, with why, for bytes that are not a device list of this protocol
// version (a node of another Parasol).
bool decode(std::span<const unsigned char> bytes, backend::RankDevices& devices,
            std::string& why);

}  // namespace parasol::cluster
