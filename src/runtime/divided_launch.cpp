#include "runtime/divided_launch.h"

#include <memory>

#include "core/object.h"
#include "runtime/submit.h"
#include "schedulers/divide_strategy.h"
#include "schedulers/socl_factor_choice.h"
#include "util/log.h"

namespace parasol::runtime {

namespace {

thread_local const core::Kernel* t_dividing = nullptr;

// A command that only fails: the result of a division that went wrong.
class FailedDivision final : public Command {
 public:
  explicit FailedDivision(cl_int status) : status_(status) {}
  void launch_task(core::Event& event) override { event.complete(status_); }

 private:
  cl_int status_;
};

// Measures one launch, from its dependencies being met (the gate) to its
// end, and reports it to the strategy.
struct Measurement {
  std::uint64_t key;
  unsigned factor;
  core::Ref<core::Event> gate;

  static void CL_CALLBACK on_complete(cl_event e, cl_int status, void* self) {
    std::unique_ptr<Measurement> m(static_cast<Measurement*>(self));
    if (status != CL_COMPLETE) return;
    auto* result = core::Event::from(e);
    double seconds = (result->time_end() - m->gate->time_end()) * 1e-9;
    schedulers::divide_strategy().record(m->key, m->factor, seconds);
  }
};

void measure(core::Event& result, std::uint64_t key, unsigned factor, core::Ref<core::Event> gate) {
  auto m = std::make_unique<Measurement>(Measurement{key, factor, std::move(gate)});
  result.add_callback({&Measurement::on_complete, m.release(), CL_COMPLETE});
}

// Takes over the reference the divide function handed back with `after`.
void release_handle(core::Event* e) { e->release_api(); }

}  // namespace

bool dividing(const core::Kernel* k) { return t_dividing == k; }

core::Ref<core::Event> enqueue_divided(
    core::CommandQueue& queue, core::Kernel& kernel, std::uint64_t key,
    std::span<core::Event* const> waits,
    const std::function<core::Ref<core::Event>(std::span<core::Event* const>)>& enqueue_kernel) {
  core::DivideFunction divide = kernel.divide_function();
  unsigned factor = schedulers::divide_strategy().choose(key, divide.min_factor, divide.max_factor);

  // The gate: completes when the command's dependencies (wait list, queue
  // order) are met. It is the divide function's `before`.
  core::Ref<core::Event> gate = submit(queue, CL_COMMAND_MARKER, nullptr, waits);
  core::Event* gate_list[] = {gate.get()};

  core::Ref<core::Event> result;
  if (factor == 0) {
    result = enqueue_kernel(gate_list);
  } else {
    cl_event after = nullptr;
    const core::Kernel* outer = t_dividing;
    t_dividing = &kernel;
    gate->list();  // the divide function gets its handle
    cl_int err = divide.call(queue.handle(), factor, gate->handle(), &after);
    t_dividing = outer;
    auto* after_event = after && core::registry::contains(after, core::ObjectKind::Event)
                            ? core::Event::from(after)
                            : nullptr;
    if (err != CL_SUCCESS || !after_event) {
      log::error("the divide function of kernel ", kernel.name(), " (factor ", factor, ") ",
                 err != CL_SUCCESS ? "returned an error" : "set no valid `after` event",
                 "; the command fails");
      cl_int status = err < 0 ? err : CL_INVALID_OPERATION;
      result = submit(queue, CL_COMMAND_NDRANGE_KERNEL, std::make_unique<FailedDivision>(status),
                             gate_list);
      if (after_event) release_handle(after_event);
    } else {
      core::Event* after_list[] = {after_event};
      result = submit(queue, CL_COMMAND_NDRANGE_KERNEL, nullptr, after_list);
      release_handle(after_event);
    }
  }
  result->set_partitioning_factor(factor);
  measure(*result, key, factor, gate);
  core::drop_api_reference(gate);  // the user never owned `before`
  return result;
}

namespace {

// The enqueue's event: launched once `after` completed, it ends with the
// span from `before`'s end to `after`'s end, which it reports to the choice.
class DividedRun final : public Command {
 public:
  DividedRun(std::shared_ptr<schedulers::SoclFactorChoice> choice, cl_uint factor,
             core::Ref<core::Event> before, core::Ref<core::Event> after)
      : choice_(std::move(choice)), factor_(factor), before_(std::move(before)),
        after_(std::move(after)) {}
  ~DividedRun() override {
    if (!measured_) choice_->abandon(factor_);  // a failed run
  }

  void launch_task(core::Event& event) override {
    const std::uint64_t start = before_->time_end(), end = after_->time_end();
    choice_->record(factor_, end > start ? end - start : 0);
    measured_ = true;
    event.complete_spanning(start, end);
  }

 private:
  std::shared_ptr<schedulers::SoclFactorChoice> choice_;
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
  const std::shared_ptr<schedulers::SoclFactorChoice> choice = kernel.socl_choice(
      [](cl_uint space) { return std::make_shared<schedulers::SoclFactorChoice>(space); });

  // `before`: completes when the command's wait list and queue order are met.
  core::Ref<core::Event> before = submit(queue, CL_COMMAND_MARKER, nullptr, waits);
  before->list();  // the divide function gets its handle
  const cl_uint factor = choice->choose();
  cl_event after = nullptr;
  const cl_int err = divide.fn(queue.handle(), factor, divide.data, before->handle(), &after);
  core::drop_api_reference(before);  // the application never owned `before`

  core::Event* after_event = after && core::registry::contains(after, core::ObjectKind::Event)
                                 ? core::Event::from(after)
                                 : nullptr;
  core::Ref<core::Event> after_ref(after_event);
  if (after_event) after_event->release_api();  // the reference the divide function handed over
  if (err != CL_SUCCESS || !after_event) {
    choice->abandon(factor);
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
  out = submit(queue, CL_COMMAND_NDRANGE_KERNEL,
                      std::make_unique<DividedRun>(choice, factor, before, after_ref),
                      after_list);
  out->set_partitioning_factor(factor);
  return CL_SUCCESS;
}

}  // namespace parasol::runtime
