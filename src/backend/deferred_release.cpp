#include "backend/deferred_release.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "util/callback_scope.h"
#include "util/thread_name.h"

namespace parasol::backend {
namespace {

// One thread running work in order, started on first use.
class SerialThread {
 public:
  SerialThread(const char* name, bool may_wait_for_starpu) : name_(name), may_wait_(may_wait_for_starpu) {}
  void push(std::function<void()> work) {
    std::lock_guard lock(mutex_);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    queue_.push_back(std::move(work));
    wake_.notify_one();
  }

  void drain() {
    std::unique_lock lock(mutex_);
    drained_.wait(lock, [this] { return queue_.empty() && !busy_; });
  }

 private:
  void run() {
    name_this_thread(name_);
    std::optional<CallbackScope> scope;  // unless it may: what runs here must not wait for StarPU
    if (!may_wait_) scope.emplace();
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return !queue_.empty(); });
      auto work = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      lock.unlock();
      work();
      lock.lock();
      busy_ = false;
      if (queue_.empty()) drained_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, drained_;
  std::deque<std::function<void()>> queue_;
  bool busy_ = false;
  const char* const name_;
  const bool may_wait_;
  std::thread thread_;
};

// Never destroyed: the threads live until the process ends.
SerialThread& releaser() {
  static auto* r = new SerialThread("parasol-release", false);
  return *r;
}
SerialThread& launcher() {
  static auto* l = new SerialThread("parasol-launch", false);
  return *l;
}
// Launches that may take a lease: its blocking StarPU acquisition is
// allowed here, never behind a launch or release of the others.
SerialThread& lease_launcher() {
  static auto* l = new SerialThread("parasol-lease", true);
  return *l;
}

SerialThread& split_launcher() {
  static auto* l = new SerialThread("parasol-split", true);
  return *l;
}

}  // namespace

void defer_release(std::function<void()> work) { releaser().push(std::move(work)); }
void drain_deferred_releases() { releaser().drain(); }
void defer_launch(std::function<void()> launch) { launcher().push(std::move(launch)); }
void defer_split_launch(std::function<void()> launch) {
  split_launcher().push(std::move(launch));
}
void defer_launch_taking_leases(std::function<void()> launch) {
  lease_launcher().push(std::move(launch));
}

namespace {
thread_local bool t_in_vendor_callback = false;
}  // namespace

InVendorCallback::InVendorCallback() { t_in_vendor_callback = true; }
InVendorCallback::~InVendorCallback() { t_in_vendor_callback = false; }
bool may_call_vendors_here() { return !t_in_vendor_callback; }

}  // namespace parasol::backend
