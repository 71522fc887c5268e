#include "schedulers/rank_placement.h"

#include <algorithm>
#include <limits>

namespace parasol::schedulers {

double RankPlacement::known_time(std::uint64_t key, const Place& place,
                                 std::span<const Place> places) const {
  auto it = measures_.find({key, place.id});
  return it != measures_.end() && it->second.runs > 0 ? it->second.us : known_us(key, places);
}

double RankPlacement::known_us(std::uint64_t key, std::span<const Place> places) const {
  double best = 0;
  for (const Place& p : places)
    if (auto it = measures_.find({key, p.id}); it != measures_.end() && it->second.runs > 0)
      best = best == 0 ? it->second.us : std::min(best, it->second.us);
  return best;
}

RankPlacement::Ticket RankPlacement::ticket_for(std::uint64_t key, const Place& place,
                                                std::uint64_t start, double us, bool calibrating) {
  Ticket t;
  t.key = key;
  t.place = place.id;
  t.executor = place.executor;
  t.calibrating = calibrating;
  t.valid = true;
  t.us = us;
  t.finish = start + static_cast<std::uint64_t>(t.us * 1e3);
  backlog_us_[place.executor] += t.us;
  ++outstanding_[place.executor];
  Measure& m = measures_[{key, place.id}];
  if (calibrating) m.calibrating = true;
  m.last = ++choices_[key];
  return t;
}

std::size_t RankPlacement::choose(std::uint64_t key, std::span<const Place> places,
                                  std::uint64_t ready_ns, std::uint64_t now, Ticket& ticket) {
  std::lock_guard lock(mutex_);
  auto usable = [&](const Place& p) { return !lost_.contains(p.executor); };
  auto start_on = [&](const Place& p) {
    auto b = backlog_us_.find(p.executor);
    const double queued = b == backlog_us_.end() ? 0 : b->second / std::max(1u, p.width);
    return std::max(ready_ns, now + static_cast<std::uint64_t>(queued * 1e3));
  };
  // Calibration: the first place still short of measurements, with no
  // calibrating command of this key out there.
  for (std::size_t i = 0; i < places.size(); ++i) {
    if (!usable(places[i])) continue;
    auto it = measures_.find({key, places[i].id});
    if (it == measures_.end() || (it->second.runs < kCalibrationRuns && !it->second.calibrating)) {
      // Its time there is not known yet: the backlog counts it at the
      // best time measured elsewhere.
      const double us = it != measures_.end() && it->second.runs > 0 ? it->second.us
                                                                      : known_us(key, places);
      ticket = ticket_for(key, places[i], start_on(places[i]), us, true);
      return i;
    }
  }
  // A probe: an idle place left out for a while.
  const std::uint64_t count = choices_[key];
  for (std::size_t i = 0; i < places.size(); ++i) {
    if (!usable(places[i])) continue;
    auto it = measures_.find({key, places[i].id});
    auto busy = outstanding_.find(places[i].executor);
    if (it != measures_.end() && !it->second.calibrating && count - it->second.last >= kProbePeriod &&
        (busy == outstanding_.end() || busy->second == 0)) {
      ticket = ticket_for(key, places[i], start_on(places[i]), it->second.us, true);
      return i;
    }
  }
  // The measured place expected to finish it first.
  std::size_t best = places.size();
  double best_end = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < places.size(); ++i) {
    if (!usable(places[i])) continue;
    auto it = measures_.find({key, places[i].id});
    if (it == measures_.end() || it->second.runs == 0) continue;
    const double end = static_cast<double>(start_on(places[i])) + it->second.us * 1e3;
    if (end < best_end) {
      best_end = end;
      best = i;
    }
  }
  if (best == places.size()) {
    // Nothing measured yet (or every place lost): the first usable place.
    best = 0;
    for (std::size_t i = 0; i < places.size(); ++i)
      if (usable(places[i])) {
        best = i;
        break;
      }
  }
  ticket = ticket_for(key, places[best], start_on(places[best]), known_time(key, places[best], places),
                      false);
  return best;
}

RankPlacement::Ticket RankPlacement::note(std::uint64_t key, const Place& place,
                                          std::uint64_t now) {
  std::lock_guard lock(mutex_);
  auto b = backlog_us_.find(place.executor);
  const double queued = b == backlog_us_.end() ? 0 : b->second / std::max(1u, place.width);
  return ticket_for(key, place, now + static_cast<std::uint64_t>(queued * 1e3),
                    known_time(key, place, std::span(&place, 1)), false);
}

void RankPlacement::end(const Ticket& t, std::uint64_t serial, std::uint64_t start_ns,
                        std::uint64_t end_ns, Outcome outcome) {
  if (!t.valid) return;
  std::lock_guard lock(mutex_);
  double& backlog = backlog_us_[t.executor];
  backlog = std::max(0.0, backlog - t.us);
  if (unsigned& n = outstanding_[t.executor]; n > 0) --n;
  Measure& m = measures_[{t.key, t.place}];
  if (t.calibrating) m.calibrating = false;
  if (outcome == Outcome::NodeLost) lost_.insert(t.executor);
  if (outcome != Outcome::Completed || end_ns <= start_ns) return;
  // From when the executor was free for it: it may have waited behind the
  // commands before it.
  // (A device of this process may run commands side by side on several
  // vendor queues: one that ended before the last one counts from its start.)
  std::uint64_t& last = last_end_[serial];
  const std::uint64_t from = last < end_ns ? std::max(start_ns, last) : start_ns;
  last = std::max(last, end_ns);
  const double us = static_cast<double>(end_ns - from) * 1e-3;
  if (m.runs < kCalibrationRuns || t.calibrating)  // a calibration or a probe
    m.us = us;
  else
    m.us += kSmoothing * (us - m.us);
  ++m.runs;
}

void RankPlacement::bind(const void* command, const Ticket& ticket) {
  if (!ticket.valid) return;
  std::lock_guard lock(mutex_);
  ends_[command] = ticket.finish;
}

void RankPlacement::unbind(const void* command) {
  std::lock_guard lock(mutex_);
  ends_.erase(command);
}

std::uint64_t RankPlacement::expected_end(const void* command) const {
  std::lock_guard lock(mutex_);
  auto it = ends_.find(command);
  return it == ends_.end() ? 0 : it->second;
}

double RankPlacement::time_us(std::uint64_t key, std::uint64_t place) const {
  std::lock_guard lock(mutex_);
  auto it = measures_.find({key, place});
  return it == measures_.end() || it->second.runs == 0 ? -1.0 : it->second.us;
}

double RankPlacement::backlog_us(std::uint64_t executor) const {
  std::lock_guard lock(mutex_);
  auto it = backlog_us_.find(executor);
  return it == backlog_us_.end() ? 0 : it->second;
}

RankPlacement& rank_placement() {
  // Never destroyed: a command may end during the process's exit.
  static RankPlacement& p = *new RankPlacement;
  return p;
}

}  // namespace parasol::schedulers
