#include "runtime/kernel_codelets.h"

#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "runtime/task_command.h"

namespace parasol::runtime {
namespace {

struct KernelCodelet {
  std::string symbol;
  starpu_perfmodel model;
  starpu_codelet codelet;
};

}  // namespace

starpu_codelet* kernel_codelet(const std::string& symbol) {
  static std::mutex mutex;
  // Never destroyed: StarPU reads codelets and models until it shuts down.
  static auto* codelets = new std::map<std::string, std::unique_ptr<KernelCodelet>>();
  std::lock_guard lock(mutex);
  auto& slot = (*codelets)[symbol];
  if (!slot) {
    slot = std::make_unique<KernelCodelet>();
    slot->symbol = symbol;
    std::memset(&slot->model, 0, sizeof slot->model);
    slot->model.type = STARPU_NL_REGRESSION_BASED;
    slot->model.symbol = slot->symbol.c_str();
    slot->model.footprint = &TaskCommand::footprint_of;
    slot->model.size_base = &TaskCommand::size_of;
    TaskCommand::fill_codelet(slot->codelet);
    slot->codelet.model = &slot->model;
    slot->codelet.name = slot->symbol.c_str();
  }
  return &slot->codelet;
}

starpu_codelet* wall_time_codelet() {
  struct Sink {
    starpu_perfmodel model;
    starpu_codelet codelet;
  };
  // Never destroyed: StarPU ends tasks until it shuts down. Built on first
  // use, on a worker: StarPU is running then.
  static Sink* sink = [] {
    auto* s = new Sink();
    std::memset(&s->model, 0, sizeof s->model);
    s->model.type = STARPU_PER_ARCH;
    s->model.symbol = "parasol_wall_time";
    starpu_perfmodel_init(&s->model);
    // Always set: StarPU sets the end time only while the model calibrates,
    // and a stale end time before a fresh start is a negative sample (an
    // assertion in StarPU).
    s->model.benchmarking = 1;
    TaskCommand::fill_codelet(s->codelet);
    s->codelet.model = &s->model;
    return s;
  }();
  return &sink->codelet;
}

}  // namespace parasol::runtime
