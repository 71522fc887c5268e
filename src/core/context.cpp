#include "core/context.h"

#include <CL/cl_parasol.h>
#include <starpu.h>

#include <algorithm>

#include "backend/deferred_release.h"
#include "backend/starpu_policies.h"
#include "backend/starpu_runtime.h"
#include "backend/worker_parking.h"
#include "util/log.h"
#include "util/settings.h"

namespace parasol::core {

Context::Context(std::vector<Device*> devices, std::vector<cl_context_properties> properties,
                 ContextNotify notify, void* user_data, std::string scheduler)
    : devices_(std::move(devices)), properties_(std::move(properties)), notify_(notify),
      user_data_(user_data), scheduler_(std::move(scheduler)),
      data_aware_(backend::is_data_aware(scheduler_)), splits_launches_(settings::split() ? Split::Large : Split::Never) {
  for (std::size_t i = 0; i + 1 < properties_.size(); i += 2)
    if (properties_[i] == CL_CONTEXT_SPLIT_PARASOL && splits_launches_ != Split::Never)
      splits_launches_ = properties_[i + 1] == CL_FALSE ? Split::Never : Split::Always;
  // A context holds an API reference on its sub-devices, as it does in
  // the vendors' runtimes: they stay valid handles while it lives.
  for (Device* d : devices_)
    if (d->parent()) d->retain_api();
  // Context queues place on this process's devices: another rank's
  // device (no StarPU worker here) is never in their rotation.
  for (std::size_t i = 0; i < devices_.size(); ++i)
    if (devices_[i]->worker().worker_id < 0) out_of_rotation_.fetch_or(bit(i));
  if (!log::enabled(log::Level::Info)) return;
  log::info("context ", static_cast<const void*>(this), " over ", devices_.size(), " devices (",
            device_list(), "): its context queues place commands with policy '", scheduler_,
            "' (StarPU ", backend::starpu_policy(scheduler_), ")");
}

std::string Context::device_list() const {
  std::string out;
  for (const Device* d : devices_) {
    if (!out.empty()) out += ", ";
    out += d->label();
  }
  return out;
}

void Context::add_destructor_callback(void(CL_CALLBACK* fn)(cl_context, void*),
                                      void* user_data) {
  std::lock_guard lock(callbacks_mutex_);
  destructor_callbacks_.emplace_back(fn, user_data);
}

Context::~Context() {
  for (auto it = destructor_callbacks_.rbegin(); it != destructor_callbacks_.rend(); ++it)
    it->first(handle(), it->second);
  for (Device* d : devices_)
    if (d->parent()) d->release_api();
  // The last reference may drop inside a StarPU callback, where deleting a
  // scheduling context (it waits for the context's tasks) is forbidden.
  if (owns_sched_ctx_)
    backend::defer_release([id = sched_ctx_] {
      backend::StarpuRuntime::while_running([id] {
        backend::WorkerDemand demand = backend::WorkerDemand::raise();
        starpu_sched_ctx_delete(id);
      });
    });
}

bool Context::has_device(const Device* d) const { return device_index(d) >= 0; }

int Context::device_index(const Device* d) const {
  auto it = std::find(devices_.begin(), devices_.end(), d);
  return it == devices_.end() ? -1 : static_cast<int>(it - devices_.begin());
}

Device* Context::device_on_worker(int worker_id) const {
  for (Device* d : devices_)
    if (d->worker().worker_id == worker_id) return d;
  return nullptr;
}

bool Context::take_out_of_rotation(const Device* d) {
  int i = device_index(d);
  if (i < 0) return false;
  const std::uint64_t b = bit(static_cast<std::size_t>(i));
  return !(out_of_rotation_.fetch_or(b, std::memory_order_acq_rel) & b);
}

bool Context::in_rotation(const Device* d) const {
  int i = device_index(d);
  return i >= 0 &&
         !(out_of_rotation_.load(std::memory_order_acquire) & bit(static_cast<std::size_t>(i)));
}

void Context::notify(const std::string& message) const {
  if (notify_) notify_(message.c_str(), nullptr, 0, user_data_);
}

unsigned Context::sched_ctx() {
  // Asked at every context-queue launch: std::call_once's own check costs
  // four thread-local lookups.
  if (sched_ready_.load(std::memory_order_acquire)) return sched_ctx_;
  std::call_once(sched_once_, [this] {
    std::vector<int> workers;  // each once: sub-devices share their root's
    for (Device* d : devices_)
      if (d->worker().worker_id >= 0 &&  // another rank's device has no worker here
          std::find(workers.begin(), workers.end(), d->worker().worker_id) == workers.end())
        workers.push_back(d->worker().worker_id);
    std::string policy = backend::starpu_policy(scheduler_);
    backend::WorkerDemand demand = backend::WorkerDemand::raise();
    unsigned id = starpu_sched_ctx_create(workers.data(), static_cast<int>(workers.size()),
                                          "parasol", STARPU_SCHED_CTX_POLICY_NAME,
                                          policy.c_str(), 0);
    if (id == STARPU_NMAX_SCHED_CTXS || id == 0) {
      log::warn("no StarPU scheduling context left for context ", static_cast<const void*>(this),
                " (StarPU 1.3 allows ", STARPU_NMAX_SCHED_CTXS, "); its context queues use "
                "StarPU's global context, over every device, and its policy instead of '",
                scheduler_, "'");
      sched_ctx_ = 0;
      sched_ready_.store(true, std::memory_order_release);
      return;
    }
    sched_ctx_ = id;
    owns_sched_ctx_ = true;
    sched_ready_.store(true, std::memory_order_release);
    log::info("context ", static_cast<const void*>(this), ": its first context queue schedules "
              "with policy '", scheduler_, "' (StarPU ", policy, ", scheduling context ", id,
              ") over ", workers.size(), " devices: ", device_list());
  });
  return sched_ctx_;
}

}  // namespace parasol::core
