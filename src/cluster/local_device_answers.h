// What a node reports of its machine's devices: the devices of the Parasol
// platform this process sees through the ICD loader (the vendors' devices
// and the native CPU device, as any application there would see them), each
// with every clGetDeviceInfo answer that Parasol gives.
#pragma once

#include <CL/cl.h>

#include <string>
#include <vector>

#include "backend/cluster_link.h"

namespace parasol::cluster {

// The devices' answers; empty, with why, when the loader shows no Parasol
// platform or Parasol lists no device.
std::vector<backend::DeviceAnswers> local_device_answers(std::string& why);

// The Parasol platform's devices, in the order reported; empty, with why,
// as above.
std::vector<cl_device_id> local_devices(std::string& why);

}  // namespace parasol::cluster
