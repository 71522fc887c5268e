#include "runtime/vendor_lock.h"

#include <cstring>
#include <map>
#include <memory>

namespace parasol::runtime {
namespace {

bool thread_unsafe(cl_platform_id platform) {
  char name[256] = "";
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, nullptr);
  return std::strncmp(name, "Oclgrind", 8) == 0;
}

// The platform's lock, or null for a thread-safe vendor.
std::recursive_mutex* vendor_mutex(cl_platform_id platform) {
  static std::mutex registry_mutex;
  // Never destroyed: StarPU's threads may still launch during exit.
  static auto* locks = new std::map<cl_platform_id, std::unique_ptr<std::recursive_mutex>>();
  std::recursive_mutex* m = nullptr;
  {
    std::lock_guard lock(registry_mutex);
    auto it = locks->find(platform);
    if (it == locks->end())
      it = locks->emplace(platform, thread_unsafe(platform) ? std::make_unique<std::recursive_mutex>()
                                                            : nullptr).first;
    m = it->second.get();
  }
  return m;
}

}  // namespace

VendorLock lock_vendor(cl_platform_id platform) {
  std::recursive_mutex* m = platform ? vendor_mutex(platform) : nullptr;
  return m ? VendorLock(*m) : VendorLock();
}

bool vendor_is_thread_safe(cl_platform_id platform) {
  return platform && !vendor_mutex(platform);
}

}  // namespace parasol::runtime
