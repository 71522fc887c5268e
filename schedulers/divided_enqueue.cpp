#include "schedulers/divided_enqueue.h"

#include <memory>

#include "core/object.h"
#include "schedulers/divide_strategy.h"
#include "util/log.h"

namespace parasol::schedulers {
namespace {

thread_local const core::Kernel* t_dividing = nullptr;

// A command that only fails: the result of a division that went wrong.
class FailedDivision final : public core::Command {
 public:
  explicit FailedDivision(cl_int status) : status_(status) {}
  void launch(core::Event& event) override { event.complete(status_); }

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
    divide_strategy().record(m->key, m->factor, seconds);
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
  unsigned factor = divide_strategy().choose(key, divide.min_factor, divide.max_factor);

  // The gate: completes when the command's dependencies (wait list, queue
  // order) are met. It is the divide function's `before`.
  core::Ref<core::Event> gate = queue.enqueue(CL_COMMAND_MARKER, nullptr, waits);
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
      result = queue.enqueue(CL_COMMAND_NDRANGE_KERNEL, std::make_unique<FailedDivision>(status),
                             gate_list);
      if (after_event) release_handle(after_event);
    } else {
      core::Event* after_list[] = {after_event};
      result = queue.enqueue(CL_COMMAND_NDRANGE_KERNEL, nullptr, after_list);
      release_handle(after_event);
    }
  }
  result->set_partitioning_factor(factor);
  measure(*result, key, factor, gate);
  core::drop_api_reference(gate);  // the user never owned `before`
  return result;
}

}  // namespace parasol::schedulers
