// A context: a set of Parasol devices, vendors mixed, and the policy that
// places the commands of its context queues.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/object.h"

namespace parasol::core {

using ContextNotify = void(CL_CALLBACK*)(const char*, const void*, size_t, void*);

class Context final : public Object<Context, _cl_context, ObjectKind::Context> {
 public:
  Context(std::vector<Device*> devices, std::vector<cl_context_properties> properties,
          ContextNotify notify, void* user_data, std::string scheduler);
  ~Context();

  const std::vector<Device*>& devices() const { return devices_; }
  bool has_device(const Device* d) const;
  // Index of d in devices(), or -1.
  int device_index(const Device* d) const;
  // The first of devices() that StarPU worker `worker_id` drives (several
  // may: sub-devices run on their root device's worker), or null.
  Device* device_on_worker(int worker_id) const;
  const std::vector<cl_context_properties>& properties() const { return properties_; }
  const std::string& scheduler() const { return scheduler_; }
  // Whether its policy weighs where the data is (heft, the dmda family):
  // asked at every context-queue launch.
  bool data_aware() const { return data_aware_; }
  // Whether its context queues split a launch across its devices
  // (runtime/split_launch.h): never (PARASOL_SPLIT=0, or the property
  // CL_CONTEXT_SPLIT_PARASOL is CL_FALSE), large launches only (by
  // default), or every launch that can be (the property is CL_TRUE).
  enum class Split { Never, Large, Always };
  Split splits_launches() const { return splits_launches_; }
  // Commands of its context queues enqueued and not finished
  // (CommandQueue counts them): a large launch splits only where no other
  // runs beside it (runtime/split_launch.h).
  void context_command_began() { context_commands_.fetch_add(1, std::memory_order_relaxed); }
  void context_command_ended() { context_commands_.fetch_sub(1, std::memory_order_relaxed); }
  std::uint64_t context_commands_in_flight() const {
    return context_commands_.load(std::memory_order_relaxed);
  }

  // Tells the application about an error through its pfn_notify, if any.
  void notify(const std::string& message) const;

  // The StarPU scheduling context of this context's queues (created on
  // first use; falls back to StarPU's global context when none is left).
  unsigned sched_ctx();

  void add_destructor_callback(void(CL_CALLBACK* fn)(cl_context, void*), void* user_data);

  // A device that failed with a device-level error leaves the rotation of
  // this context's queues: context queues place nothing more on it.
  // Returns false if it had already left.
  bool take_out_of_rotation(const Device* d);
  bool in_rotation(const Device* d) const;
  // Calls stop(device) for the devices in rotation, in devices() order,
  // until it returns true; whether one did. One look at the rotation, no
  // search per device (context-queue launches ask about every device).
  template <class Stop>
  bool any_in_rotation(Stop&& stop) const {
    const std::uint64_t out = out_of_rotation_.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < devices_.size(); ++i)
      if (!(out & bit(i)) && stop(devices_[i])) return true;
    return false;
  }

 private:
  // devices()[index]'s bit in out_of_rotation_.
  static std::uint64_t bit(std::size_t index) { return std::uint64_t{1} << index; }
  // "name [vendor], name [vendor]" for logs.
  std::string device_list() const;

  std::vector<Device*> devices_;
  std::vector<cl_context_properties> properties_;
  ContextNotify notify_;
  void* user_data_;
  std::string scheduler_;
  bool data_aware_;
  Split splits_launches_;
  std::once_flag sched_once_;
  std::atomic<bool> sched_ready_{false};  // sched_ctx_ is set
  unsigned sched_ctx_ = 0;
  std::atomic<std::uint64_t> out_of_rotation_{0};  // bit per device index
  std::atomic<std::uint64_t> context_commands_{0};
  bool owns_sched_ctx_ = false;
  std::mutex callbacks_mutex_;
  std::vector<std::pair<void(CL_CALLBACK*)(cl_context, void*), void*>> destructor_callbacks_;
};

}  // namespace parasol::core
