#include "schedulers/socl_division.h"

#include <limits>
#include <memory>

#include "core/object.h"
#include "util/log.h"

namespace parasol::schedulers {

SoclFactorChoice::SoclFactorChoice(cl_uint space) : space_(space) {}

cl_uint SoclFactorChoice::choose() {
  std::lock_guard lock(mutex_);
  if (space_ < 2) return 1;
  // SOCL's scan: the first factor not tried yet; past the end, the
  // shortest measured (factor 1 while none is measured). The statistics
  // grow with the factors tried, not with the space (any cl_uint).
  cl_uint factor = 1, best = 1;
  std::uint64_t best_ns = std::numeric_limits<std::uint64_t>::max();
  while (factor < space_ && factor < ns_.size() && (ns_[factor] != 0 || in_flight_[factor])) {
    if (ns_[factor] != 0 && ns_[factor] < best_ns) {
      best_ns = ns_[factor];
      best = factor;
    }
    ++factor;
  }
  if (factor == space_) factor = best;
  if (factor >= ns_.size()) {
    ns_.resize(factor + 1, 0);
    in_flight_.resize(factor + 1, false);
  }
  in_flight_[factor] = true;
  return factor;
}

void SoclFactorChoice::record(cl_uint factor, std::uint64_t ns) {
  std::lock_guard lock(mutex_);
  if (factor >= ns_.size()) return;
  ns_[factor] = ns ? ns : 1;  // 0 means "not measured"
  in_flight_[factor] = false;
}

void SoclFactorChoice::abandon(cl_uint factor) {
  std::lock_guard lock(mutex_);
  if (factor < in_flight_.size()) in_flight_[factor] = false;
}

namespace {

// The enqueue's event: launched once `after` completed, it ends with the
// span from `before`'s end to `after`'s end, which it reports to the choice.
class DividedRun final : public core::Command {
 public:
  DividedRun(std::shared_ptr<SoclFactorChoice> choice, cl_uint factor,
             core::Ref<core::Event> before, core::Ref<core::Event> after)
      : choice_(std::move(choice)), factor_(factor), before_(std::move(before)),
        after_(std::move(after)) {}
  ~DividedRun() override {
    if (!measured_) choice_->abandon(factor_);  // a failed run
  }

  void launch(core::Event& event) override {
    const std::uint64_t start = before_->time_end(), end = after_->time_end();
    choice_->record(factor_, end > start ? end - start : 0);
    measured_ = true;
    event.complete_spanning(start, end);
  }

 private:
  std::shared_ptr<SoclFactorChoice> choice_;
  cl_uint factor_;
  core::Ref<core::Event> before_, after_;
  bool measured_ = false;
};

}  // namespace

cl_int enqueue_socl_divided(core::CommandQueue& queue, core::Kernel& kernel,
                            std::span<core::Event* const> waits, core::Ref<core::Event>& out) {
  struct End {
    core::Kernel& kernel;
    ~End() { kernel.end_socl_division(); }
  } end{kernel};
  const core::SoclDivideFunction divide = kernel.socl_divide_function();

  // `before`: completes when the command's wait list and queue order are met.
  core::Ref<core::Event> before = queue.enqueue(CL_COMMAND_MARKER, nullptr, waits);
  before->list();  // the divide function gets its handle
  const cl_uint factor = divide.choice->choose();
  cl_event after = nullptr;
  const cl_int err = divide.fn(queue.handle(), factor, divide.data, before->handle(), &after);
  core::drop_api_reference(before);  // the application never owned `before`

  core::Event* after_event = after && core::registry::contains(after, core::ObjectKind::Event)
                                 ? core::Event::from(after)
                                 : nullptr;
  core::Ref<core::Event> after_ref(after_event);
  if (after_event) after_event->release_api();  // the reference the divide function handed over
  if (err != CL_SUCCESS || !after_event) {
    divide.choice->abandon(factor);
    if (err != CL_SUCCESS) {
      log::error("the divide function of kernel ", kernel.name(), " (factor ", factor,
                 ") returned error ", err, ": clEnqueueNDRangeKernel returns it");
      return err;
    }
    log::error("the divide function of kernel ", kernel.name(), " (factor ", factor,
               ") returned CL_SUCCESS without a valid `after` event: CL_INVALID_OPERATION");
    return CL_INVALID_OPERATION;
  }
  core::Event* after_list[] = {after_event};
  out = queue.enqueue(CL_COMMAND_NDRANGE_KERNEL,
                      std::make_unique<DividedRun>(divide.choice, factor, before, after_ref),
                      after_list);
  out->set_partitioning_factor(factor);
  return CL_SUCCESS;
}

}  // namespace parasol::schedulers
