// A command as the runtime runs it: the work core's event launches once its
// dependencies are done (core::Command), with the direct path's two ways in:
// launch_direct() at enqueue (runtime/submit.h) and again when it is ready;
// otherwise launch_task() runs it (a StarPU task, or work on the host).
#pragma once

#include <span>

#include "core/event.h"

namespace parasol::runtime {

class Command : public core::Command {
 public:
  // Its dependencies are done: the direct path may take it now, unless it
  // refused it at enqueue with every dependency already done; else
  // launch_task().
  void launch(core::Event& event) final;

  // Sends the command straight to a device's vendor queue when its
  // dependencies and data allow it (runtime/direct_launch.h); false leaves
  // it to launch_task(). deps: every event it waits for; named: those of
  // them its wait list names (their failure is its own,
  // core::Event::begin_direct()).
  virtual bool launch_direct(core::Event&, std::span<core::Event* const> /*deps*/,
                             std::span<core::Event* const> /*named*/) {
    return false;
  }
  // The command will outlive its API call without having gone to its
  // vendor: it copies what it read in place from the call's objects (a
  // kernel's arguments).
  virtual void keep_inputs() {}
  // The direct path refused it at enqueue with every dependency done:
  // launch() does not ask again.
  void refused_when_ready() { refused_when_ready_ = true; }

 protected:
  // Runs the command off the direct path.
  virtual void launch_task(core::Event& event) = 0;

 private:
  bool refused_when_ready_ = false;
};

}  // namespace parasol::runtime
