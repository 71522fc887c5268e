#include "runtime/rank_choice.h"

#include <algorithm>
#include <memory>
#include <string>

#include "core/context.h"
#include "core/device.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/small_vector.h"

namespace parasol::runtime {
namespace {

using schedulers::RankPlacement;

// Places of this process's devices carry this bit; other ranks' devices are
// named by their Device, and their executor, the node, by its rank.
constexpr std::uint64_t kThisProcess = 1ull << 63;

// This process's devices of a context, as one place: named by the devices
// themselves, so that contexts over the same devices share what was
// measured there.
RankPlacement::Place this_process(std::span<core::Device* const> devices) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const core::Device* d : devices)
    h = (h ^ static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(d))) * 0x100000001b3ull;
  h |= kThisProcess;
  return {h, h, static_cast<unsigned>(devices.size())};
}

RankPlacement::Place another_rank(const core::Device& d, const backend::RemotePlace& at) {
  return {static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&d)),
          static_cast<std::uint64_t>(at.rank), 1};
}

struct Followed {
  RankPlacement::Ticket ticket;
  bool remote;
};

void CL_CALLBACK ended(cl_event handle, cl_int status, void* data) {
  std::unique_ptr<Followed> f(static_cast<Followed*>(data));
  core::Event* event = core::Event::from(handle);
  RankPlacement& placement = schedulers::rank_placement();
  placement.unbind(event);
  // A node runs its requests one at a time; this process's devices each
  // their own commands.
  std::uint64_t serial = f->ticket.place;
  if (f->remote)
    serial = f->ticket.executor;
  else if (const core::Device* d = event->executed_on())
    serial = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(d));
  // A failure that reached it from a dependency (it never ran: nothing
  // set where it ran) says nothing of its place.
  using Outcome = RankPlacement::Outcome;
  const Outcome outcome = status == CL_COMPLETE ? Outcome::Completed
                          : f->remote && event->executed_on() && status == CL_DEVICE_NOT_AVAILABLE
                              ? Outcome::NodeLost
                              : Outcome::Failed;
  placement.end(f->ticket, serial, event->time_start(), event->time_end(), outcome);
}

}  // namespace

std::optional<RankChoice> choose_rank(core::CommandQueue& queue, const core::Kernel& kernel,
                                      std::span<const core::KernelArg> args, const NDRange& range,
                                      std::span<core::Event* const> wait_list) {
  RankPlacement& placement = schedulers::rank_placement();
  if (core::Device* pinned = queue.device()) {
    const backend::RemotePlace* at = pinned->backend().remote_place();
    if (!at) return std::nullopt;
    RankChoice choice{pinned, {}};
    choice.ticket =
        placement.note(KernelCommand::launch_key(kernel, args, range), another_rank(*pinned, *at),
                       now_ns());
    return choice;
  }
  const core::Context& context = *queue.context();
  SmallVector<core::Device*, 8> here, remote;
  for (core::Device* d : context.devices()) {
    if (d->backend().remote_place()) {
      if (kernel.runs_on(d)) remote.push_back(d);
    } else if (context.in_rotation(d)) {
      here.push_back(d);
    }
  }
  if (remote.empty()) return std::nullopt;
  SmallVector<RankPlacement::Place, 8> places;  // this process's devices first
  if (!here.empty()) places.push_back(this_process({here.data(), here.size()}));
  for (core::Device* d : remote) places.push_back(another_rank(*d, *d->backend().remote_place()));
  // It starts no earlier than the placed commands it waits for end.
  std::uint64_t ready = 0;
  for (const core::Event* e : wait_list) ready = std::max(ready, placement.expected_end(e));
  if (core::Ref<core::Event> before = queue.preceding())
    ready = std::max(ready, placement.expected_end(before.get()));
  RankChoice choice;
  const std::size_t at =
      placement.choose(KernelCommand::launch_key(kernel, args, range),
                       {places.data(), places.size()}, ready, now_ns(), choice.ticket);
  if (here.empty())
    choice.remote = remote[at];
  else if (at > 0)
    choice.remote = remote[at - 1];
  if (log::enabled(log::Level::Debug)) {
    std::string seen;
    for (std::size_t i = 0; i < places.size(); ++i) {
      const bool mine = !here.empty() && i == 0;
      const double t = placement.time_us(choice.ticket.key, places[i].id);
      seen += std::string(i ? "; " : "") +
              (mine ? "this process" : remote[i - (here.empty() ? 0 : 1)]->label()) + " " +
              (t < 0 ? std::string("unmeasured") : std::to_string(static_cast<long>(t)) + " us") +
              ", backlog " + std::to_string(static_cast<long>(placement.backlog_us(places[i].executor))) +
              " us";
    }
    log::debug("kernel ", kernel.name(), ": ",
               choice.remote ? choice.remote->label() : std::string("this process's devices"),
               choice.ticket.calibrating ? " (calibrating or probing)" : "", " [", seen, "]");
  }
  return choice;
}

void follow_choice(core::Event& event, const RankChoice& choice) {
  if (!choice.ticket.valid) return;
  schedulers::rank_placement().bind(&event, choice.ticket);
  event.add_callback({&ended, new Followed{choice.ticket, choice.remote != nullptr}, CL_COMPLETE});
}

}  // namespace parasol::runtime
