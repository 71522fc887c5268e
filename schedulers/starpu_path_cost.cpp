#include "schedulers/starpu_path_cost.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>

#include "util/log.h"

namespace parasol::schedulers {
namespace {

// Exponential average, a new sample weighing 1/8: a few commands tell, a
// stray slow start (a transfer before it, a busy worker) does not rule.
constexpr double kWeight = 1.0 / 8;

// A worker's first commands pay one-time costs (the native device loads a
// kernel's compiled code, hundreds of times a short kernel's run): not the
// path's.
constexpr int kSkipped = 2;

struct PerWorker {
  std::atomic<int> seen{0};
  std::atomic<double> average{0};
};

std::array<PerWorker, STARPU_NMAXWORKERS>& workers() {
  static std::array<PerWorker, STARPU_NMAXWORKERS> a{};
  return a;
}

}  // namespace

void note_starpu_path(int worker, double us) {
  if (worker < 0 || worker >= STARPU_NMAXWORKERS || !(us >= 0)) return;
  PerWorker& w = workers()[static_cast<std::size_t>(worker)];
  if (w.seen.fetch_add(1, std::memory_order_relaxed) < kSkipped) return;
  auto& avg = w.average;
  double old = avg.load(std::memory_order_relaxed);
  // A start delayed by other work (a burst queued on the worker, a transfer
  // first) counts at most twice the average: the cost of the path, not of
  // the load, which HEFT already weighs.
  if (old > 0) us = std::min(us, 2 * old);
  // Racing updates may drop a sample: an estimate, not a count.
  avg.store(old == 0 ? us : old + (us - old) * kWeight, std::memory_order_relaxed);
}

double starpu_path_us(int worker) {
  if (worker < 0 || worker >= STARPU_NMAXWORKERS) return 0;
  return workers()[static_cast<std::size_t>(worker)].average.load(std::memory_order_relaxed);
}

void hold_back_slow_paths(starpu_task* task, std::span<core::Device* const> devices,
                          std::vector<int>& held_back, unsigned sched_ctx,
                          bool (*direct)(const core::Device&)) {
  auto held = [&](int w) { return std::find(held_back.begin(), held_back.end(), w) != held_back.end(); };
  auto expected = [&](const core::Device* d) {
    const int w = d->worker().worker_id;
    return starpu_task_expected_length(task, starpu_worker_get_perf_archtype(w, sched_ctx), 0);
  };
  double best_direct = INFINITY;
  for (const core::Device* d : devices) {
    if (held(d->worker().worker_id) || !direct(*d)) continue;
    const double t = expected(d);
    if (std::isnan(t)) return;
    best_direct = std::min(best_direct, t);
  }
  if (!std::isfinite(best_direct)) return;
  for (const core::Device* d : devices) {
    const int w = d->worker().worker_id;
    if (held(w) || direct(*d)) continue;
    const double t = expected(d);
    if (std::isnan(t)) return;
    const double cost = t + starpu_path_us(w);
    if (cost > best_direct) {
      log::debug("kernel '", task->cl->model ? task->cl->model->symbol : "?", "': ", d->label(),
                 " takes ", t, " us and ", cost - t, " us more through StarPU, against ", best_direct,
                 " us on a device the direct path reaches: held back from it");
      held_back.push_back(w);
    }
  }
}

}  // namespace parasol::schedulers
