#include "schedulers/calibration_guard.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>

#include "schedulers/shared_measurements.h"
#include "schedulers/starpu_path_cost.h"
#include "util/log.h"

namespace parasol::schedulers {
namespace {

struct Slot {
  int in_flight = 0;       // commands placed here to calibrate, not yet done
  int measured = 0;        // calibrating runs that completed
  double fastest_us = NAN; // the fastest of them
  bool judged = false;     // recorded as calibrated by calibrate_if_far_slower
};

// A device's first launch of a kernel may pay one-time costs (NVIDIA loads
// the module then, milliseconds against microseconds for a small kernel),
// so a device is judged on the fastest of this many runs.
constexpr int kRunsToJudge = 2;

struct Guard {
  std::mutex mutex;
  std::map<std::tuple<const starpu_perfmodel*, std::uint32_t, int>, Slot> slots;
  Slot& slot(const starpu_perfmodel* m, std::uint32_t fp, int worker) {
    return slots[{m, fp, worker}];
  }
};

Guard& guard() {
  static auto* g = new Guard();  // never destroyed: task callbacks run until exit
  return *g;
}

starpu_perfmodel_arch* arch_of(const core::Device* d, unsigned sched_ctx) {
  return starpu_worker_get_perf_archtype(d->worker().worker_id, sched_ctx);
}

// NaN while StarPU's model has no value for the task on d.
double expected_us(starpu_task* task, const core::Device* d, unsigned sched_ctx) {
  return starpu_task_expected_length(task, arch_of(d, sched_ctx), 0);
}

// Before any measurement: an accelerator before a CPU (Oclgrind calls its
// simulator every type at once: not an accelerator), then more compute units.
bool likely_faster(const core::Device* a, const core::Device* b) {
  auto accel = [](const core::Device* d) {
    return (d->type() & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0 &&
           (d->type() & CL_DEVICE_TYPE_CPU) == 0;
  };
  if (accel(a) != accel(b)) return accel(a);
  return a->compute_units() > b->compute_units();
}

int calibration_minimum() {
  static const int n = starpu_get_env_number_default("STARPU_CALIBRATE_MINIMUM", 10);
  return n;
}

CalibrationPlacement only_on(const core::Device* pick, std::span<core::Device* const> devices) {
  CalibrationPlacement p;
  for (const core::Device* d : devices)
    if (d != pick) p.held_back.push_back(d->worker().worker_id);
  p.calibrating = pick->worker().worker_id;
  return p;
}

struct Measured {
  const core::Device* device = nullptr;  // the fastest measured device, if any
  double us = INFINITY;
};

// What StarPU's models say of the task on each device: the fastest measured
// device, and those not measured yet.
struct Survey {
  Measured best;
  std::vector<core::Device*> unmeasured;
};

Survey survey(starpu_task* task, std::span<core::Device* const> devices, unsigned sched_ctx) {
  Survey s;
  for (core::Device* d : devices) {
    double t = expected_us(task, d, sched_ctx);
    if (std::isnan(t))
      s.unmeasured.push_back(d);
    else if (t < s.best.us)
      s.best = {d, t};
  }
  return s;
}

// A device whose calibrating runs (slot) show it far slower than the
// fastest measured one is recorded as calibrated with its fastest run,
// once: two placements may both have surveyed the models before either
// recorded it, and a second record would double its samples. Under the
// guard's lock; task has the footprint.
bool calibrate_if_far_slower(starpu_task* task, const core::Device* d, Slot& slot,
                             const Measured& best) {
  if (slot.judged) return true;
  const double measured_us = slot.fastest_us;
  if (!best.device || slot.measured < kRunsToJudge || measured_us < kFarSlower * best.us)
    return false;
  slot.judged = true;
  starpu_perfmodel* model = task->cl->model;
  for (int i = 1; i < calibration_minimum(); ++i) record_measurement(task, *d, measured_us);
  log::info("kernel '", model->symbol, "' took ", measured_us, " us on ", d->label(), ", ",
            measured_us / best.us, "x its time on ", best.device->label(),
            ": that measurement calibrates its model there");
  return true;
}

}  // namespace

CalibrationPlacement place_for_calibration(starpu_task* task, std::uint32_t footprint,
                                           std::span<core::Device* const> devices,
                                           const core::Device* resident, unsigned sched_ctx) {
  const starpu_perfmodel* model = task->cl->model;
  if (!model || devices.size() < 2) return {};
  const auto [best, unmeasured] = survey(task, devices, sched_ctx);
  if (unmeasured.empty()) {  // the policy decides from its models...
    // ...unless the data sits on a device far slower than the fastest,
    // counted with what StarPU's path adds to a command on devices only it
    // reaches (a 28 us kernel on PoCL is not stranded by a 1 us one on the
    // native device, which costs tens of us a command through StarPU).
    Measured fastest;
    for (const core::Device* d : devices) {
      const double t = expected_us(task, d, sched_ctx) + starpu_path_us(d->worker().worker_id);
      if (t < fastest.us) fastest = {d, t};
    }
    if (resident && fastest.device && resident != fastest.device &&
        expected_us(task, resident, sched_ctx) >= kStranded * fastest.us) {
      log::debug("kernel '", model->symbol, "': its data is on ", resident->label(),
                 ", far slower than ", fastest.device->label(), " for it: held back from it");
      return CalibrationPlacement{{resident->worker().worker_id}, -1};
    }
    return {};
  }

  auto& g = guard();
  std::lock_guard lock(g.mutex);
  auto slot = [&](const core::Device* d) -> Slot& {
    return g.slot(model, footprint, d->worker().worker_id);
  };
  std::vector<core::Device*> idle, busy;
  for (core::Device* d : unmeasured) {
    if (calibrate_if_far_slower(task, d, slot(d), best)) continue;
    (slot(d).in_flight == 0 ? idle : busy).push_back(d);
  }
  if (!idle.empty()) {
    // Calibrate the likely fastest idle device first: its measurements
    // decide the most. Between alike devices, the one measured less: each
    // calibration's data stays where it ran (runtime/direct_launch.h,
    // sole_resident), so blocks started one at a time alternate.
    core::Device* pick = *std::min_element(idle.begin(), idle.end(), [&](const core::Device* a, const core::Device* b) {
      return a->alike(*b) ? slot(a).measured < slot(b).measured : likely_faster(a, b);
    });
    ++slot(pick).in_flight;
    return only_on(pick, devices);
  }
  if (busy.empty()) return {};  // all measured now
  // Every unmeasured device is busy measuring. One that may be faster than
  // the measured ones stays a candidate (the policy then sends it the
  // command to calibrate); the others wait for their measurement.
  auto may_beat = [&](const core::Device* d, const core::Device* than, double than_us) {
    double fastest = slot(d).fastest_us;
    return std::isnan(fastest) ? likely_faster(d, than) : fastest < than_us;
  };
  if (best.device) {
    // A device alike to the measured one runs as fast: it stays a candidate
    // (schedulers/alike_placement.h shares the burst between them).
    CalibrationPlacement p;
    for (core::Device* d : busy)
      if (!d->alike(*best.device) && !may_beat(d, best.device, best.us))
        p.held_back.push_back(d->worker().worker_id);
    return p;
  }
  // Nothing measured yet: the device that measured fastest so far, else the
  // likely fastest, takes the command; between devices alike to it (two
  // GPUs of one model), the one with fewer commands placed: the burst's
  // data stays where it lands (runtime/direct_launch.h, sole_resident), so
  // a burst all on the first of two GPUs would leave the second idle for
  // good.
  auto faster = [&](const core::Device* a, const core::Device* b) {
    double ta = slot(a).fastest_us, tb = slot(b).fastest_us;
    if (a->alike(*b)) return slot(a).in_flight < slot(b).in_flight;
    if (std::isnan(ta) != std::isnan(tb)) return !std::isnan(ta);
    return std::isnan(ta) ? likely_faster(a, b) : ta < tb;
  };
  core::Device* pick = *std::min_element(busy.begin(), busy.end(), faster);
  ++slot(pick).in_flight;
  return only_on(pick, devices);
}

void calibration_ran(const CalibrationPlacement& placement, starpu_task* task,
                     std::uint32_t footprint, const core::Device& device,
                     std::span<core::Device* const> devices, unsigned sched_ctx,
                     double measured_us) {
  starpu_perfmodel* model = task->cl->model;
  if (placement.calibrating < 0 || !model) return;
  auto& g = guard();
  {
    std::lock_guard lock(g.mutex);
    Slot& s = g.slot(model, footprint, placement.calibrating);
    --s.in_flight;
    if (placement.calibrating != device.worker().worker_id || std::isnan(measured_us)) return;
    ++s.measured;
    if (std::isnan(s.fastest_us) || measured_us < s.fastest_us) s.fastest_us = measured_us;
  }
  if (!std::isnan(expected_us(task, &device, sched_ctx))) return;  // calibrated now
  const Measured best = survey(task, devices, sched_ctx).best;
  std::lock_guard lock(g.mutex);
  calibrate_if_far_slower(task, &device, g.slot(model, footprint, placement.calibrating), best);
}

void calibration_abandoned(const CalibrationPlacement& placement, const starpu_task* task,
                           std::uint32_t footprint) {
  if (placement.calibrating < 0 || !task->cl->model) return;
  auto& g = guard();
  std::lock_guard lock(g.mutex);
  --g.slot(task->cl->model, footprint, placement.calibrating).in_flight;
}

double model_expected_us(starpu_codelet* codelet, std::uint32_t footprint, int worker,
                         unsigned sched_ctx) {
  starpu_perfmodel* model = codelet->model;
  if (!model || !model->is_loaded) return NAN;
  return starpu_perfmodel_history_based_expected_perf(
      model, starpu_worker_get_perf_archtype(worker, sched_ctx), footprint);
}

}  // namespace parasol::schedulers
