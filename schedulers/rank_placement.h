// Which rank runs a context queue's kernel, when its context holds devices
// of other ranks of an MPI job.
//
// StarPU on rank 0 has no worker for another rank's device (Debian's StarPU
// 1.3 has no MPI master-slave mode), so its policies never see those
// devices. Parasol decides first, among places: this process's devices of
// the context, taken as one (StarPU's policy, the context's own, then
// chooses among them), and each device of another rank. A command goes to
// the place expected to finish it soonest:
//
//   finish(place) = max(ready, now + backlog(executor) / width) + time(key, place)
//
//  - time(key, place): what commands of this key (kernel, NDRange, argument
//    shapes: runtime::KernelCommand::launch_key) took there, measured from
//    their start to their end, smoothed. On another rank's device that runs
//    from the launch request to the return of its results: the moves of its
//    buffers over that link, both ways, are measured with the kernel (every
//    launch there carries its buffers both ways; between commands a
//    buffer's bytes are rank 0's, so this process's devices move nothing
//    more than they always do). A command that waited for its executor's
//    earlier ones counts from their end, not its own start.
//  - backlog(executor): the times expected of the commands still
//    outstanding on what runs them: a node runs its requests one at a time,
//    its devices' commands included; this process's devices run `width`
//    commands side by side.
//  - ready: the latest expected end of the placed commands it waits for
//    (its wait list, an in-order queue's previous command): a chain stays
//    where each link is cheapest rather than moving to an idle rank it
//    would wait on anyway.
//
// Calibration, as schedulers/calibration_guard.h does for StarPU's
// models: a place with fewer than kCalibrationRuns measurements of a key
// takes one command of that key at a time, the first such place in the
// order given (this process's devices first); the second measurement
// replaces the first, which may hold one-time costs (a vendor compiling the
// kernel at its first launch). Before any place has a measurement, commands
// stay on the first place given: this process's devices, where the data are.
// A place that took no command of a key for kProbePeriod choices of that
// key, and has nothing outstanding, takes the next one as a probe: its
// measurement replaces the old one, which may date from a busier time (a
// rank measured while every rank shared the same cores keeps a slow
// figure that nothing would ever correct otherwise).
// A place whose executor lost its node (a command ended with
// CL_DEVICE_NOT_AVAILABLE: runtime/remote_kernel_command.h) takes no more
// commands while another place remains.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <unordered_map>
#include <unordered_set>

namespace parasol::schedulers {

class RankPlacement {
 public:
  // One place a command may go.
  struct Place {
    std::uint64_t id = 0;        // what is measured
    std::uint64_t executor = 0;  // what runs its commands (a node; this process's devices)
    unsigned width = 1;          // how many commands the executor runs side by side
  };
  // A command counted on a place, from its choice to its end().
  struct Ticket {
    std::uint64_t key = 0;
    std::uint64_t place = 0, executor = 0;
    double us = 0;             // added to the executor's backlog
    std::uint64_t finish = 0;  // expected end, ns (now_ns())
    bool calibrating = false;
    bool valid = false;
  };

  // The index in places (not empty) of the place for a command of key
  // that can start no earlier than ready_ns; ticket: what end() takes.
  std::size_t choose(std::uint64_t key, std::span<const Place> places, std::uint64_t ready_ns,
                     std::uint64_t now, Ticket& ticket);
  // A command of key pinned to place (a device queue's): counted in its
  // executor's backlog, and measured.
  Ticket note(std::uint64_t key, const Place& place, std::uint64_t now);
  // How a command ended: it ran; it failed (or never ran: a dependency
  // failed); its node stopped answering (its executor takes no more).
  enum class Outcome { Completed, Failed, NodeLost };
  // The command of ticket ended, having started at start_ns and ended at
  // end_ns on serial (what ran it one command at a time: a node, a device
  // of this process); only a completed one is measured.
  void end(const Ticket& ticket, std::uint64_t serial, std::uint64_t start_ns,
           std::uint64_t end_ns, Outcome outcome);
  // The expected end of an outstanding command, by an identity the caller
  // gives it (its event), until end(); 0 when unknown.
  void bind(const void* command, const Ticket& ticket);
  void unbind(const void* command);
  std::uint64_t expected_end(const void* command) const;

  // What a command of key takes on place (us), or a negative number before
  // its first measurement.
  double time_us(std::uint64_t key, std::uint64_t place) const;

  // The expected time of the commands outstanding on executor (us).
  double backlog_us(std::uint64_t executor) const;

  static constexpr unsigned kCalibrationRuns = 2;
  static constexpr std::uint64_t kProbePeriod = 32;
  // Weight of a new measurement in the smoothed time.
  static constexpr double kSmoothing = 0.3;

 private:
  struct Measure {
    double us = 0;
    unsigned runs = 0;
    bool calibrating = false;  // a calibrating command (or a probe) is out there
    std::uint64_t last = 0;    // the key's choices_ when the place last took one
  };
  struct KeyPlace {
    std::uint64_t key, place;
    bool operator==(const KeyPlace&) const = default;
  };
  struct KeyPlaceHash {
    std::size_t operator()(const KeyPlace& k) const {
      return std::hash<std::uint64_t>{}(k.key * 0x9E3779B97F4A7C15ull ^ k.place);
    }
  };
  // Counts a command of key, taking us, on place's executor.
  Ticket ticket_for(std::uint64_t key, const Place& place, std::uint64_t start, double us,
                    bool calibrating);
  // The best time measured of key among places; 0 when none.
  double known_us(std::uint64_t key, std::span<const Place> places) const;
  // key's time on place, or, before its first measurement, known_us(places).
  double known_time(std::uint64_t key, const Place& place, std::span<const Place> places) const;

  mutable std::mutex mutex_;
  std::unordered_map<KeyPlace, Measure, KeyPlaceHash> measures_;
  std::unordered_map<std::uint64_t, std::uint64_t> choices_;  // commands counted, by key
  std::unordered_map<std::uint64_t, double> backlog_us_;       // by executor
  std::unordered_map<std::uint64_t, unsigned> outstanding_;    // commands, by executor
  std::unordered_map<std::uint64_t, std::uint64_t> last_end_;  // by serial
  std::unordered_map<const void*, std::uint64_t> ends_;        // bound commands' expected ends
  std::unordered_set<std::uint64_t> lost_;                      // executors
};

// The process-wide placement every context queue uses.
RankPlacement& rank_placement();

}  // namespace parasol::schedulers
