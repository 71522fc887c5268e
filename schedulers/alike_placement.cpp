#include "schedulers/alike_placement.h"

#include <starpu.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <utility>

namespace parasol::schedulers {
namespace {

// Per StarPU worker: the commands steered toward it and not ended yet, and
// when it was last chosen (a number drawn from `turns`).
struct Steered {
  std::array<std::atomic<int>, STARPU_NMAXWORKERS> running{};
  std::array<std::atomic<std::uint64_t>, STARPU_NMAXWORKERS> last{};
  std::atomic<std::uint64_t> turns{0};
};
Steered& steered() {
  static Steered counts;
  return counts;
}

}  // namespace

AlikeSteer AlikeSteer::steer(std::span<core::Device* const> candidates, std::vector<int>& held_back,
                             const std::function<bool(const core::Device&)>& holds_output) {
  AlikeSteer s;
  auto held = [&](const core::Device* d) {
    return std::find(held_back.begin(), held_back.end(), d->worker().worker_id) != held_back.end();
  };
  std::vector<const core::Device*> open;
  for (const core::Device* d : candidates)
    if (!held(d)) open.push_back(d);  // the native device is alike to none
  std::vector<bool> grouped(open.size(), false);
  for (std::size_t i = 0; i < open.size(); ++i) {
    if (grouped[i]) continue;
    // The group of open[i]: it and every later device alike to it.
    std::vector<std::size_t> group{i};
    for (std::size_t j = i + 1; j < open.size(); ++j)
      if (!grouped[j] && open[j]->alike(*open[i])) {
        grouped[j] = true;
        group.push_back(j);
      }
    if (group.size() < 2) continue;
    std::vector<std::size_t> holders;
    for (std::size_t k : group)
      if (holds_output(*open[k])) holders.push_back(k);
    if (!holders.empty()) {
      // The command follows its output; its read-only inputs are copied.
      for (std::size_t k : group)
        if (std::find(holders.begin(), holders.end(), k) == holders.end())
          held_back.push_back(open[k]->worker().worker_id);
      continue;
    }
    // The fewest running; among those, the one chosen least recently: a
    // burst alternates over the group even where each command ends before
    // the next comes, whatever earlier bursts did.
    auto load = [&](std::size_t k) {
      const int w = open[k]->worker().worker_id;
      return std::pair{steered().running[w].load(std::memory_order_relaxed),
                       steered().last[w].load(std::memory_order_relaxed)};
    };
    std::size_t keep = *std::min_element(group.begin(), group.end(),
                                         [&](std::size_t a, std::size_t b) { return load(a) < load(b); });
    for (std::size_t k : group)
      if (k != keep) held_back.push_back(open[k]->worker().worker_id);
    steered().running[open[keep]->worker().worker_id].fetch_add(1, std::memory_order_relaxed);
    steered().last[open[keep]->worker().worker_id].store(
        steered().turns.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    s.toward_.push_back(open[keep]->worker().worker_id);
  }
  return s;
}

AlikeSteer& AlikeSteer::operator=(AlikeSteer&& o) noexcept {
  if (this != &o) {
    release();
    toward_ = std::move(o.toward_);
    o.toward_.clear();
  }
  return *this;
}

void AlikeSteer::release() {
  for (int w : toward_) steered().running[w].fetch_sub(1, std::memory_order_relaxed);
  toward_.clear();
}

}  // namespace parasol::schedulers
