// Parasol's MPI layer (libParasolMPI.so): rank 0's side of the MPI job,
// behind backend::ClusterLink. Rank 0 never blocks on a node: it polls for
// device lists until its deadline; its requests are small messages, which
// MPI delivers without the node's help, and a thread of the layer's own
// receives the replies, giving up on a node with work in flight that said
// nothing (not even its heartbeat) for the timeout. MPI errors are
// returned, not fatal, so a node that died (mpirun --enable-recovery) is
// only a node that did not answer. Buffers' bytes go by StarPU-MPI,
// point-to-point between the buffer's handle here and the node's copy's.
#include <mpi.h>
#include <starpu_mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backend/cluster_link.h"
#include "cluster/protocol.h"
#include "cluster/staged_bytes.h"

namespace parasol::cluster {
namespace {

using backend::RankDevices;

using Clock = std::chrono::steady_clock;
// How long the layer's thread and a node keep polling quickly after their
// last work.
constexpr auto kWarm = std::chrono::milliseconds(50);
using Done = std::function<void(cl_int, const std::string&)>;

class MpiClusterLink final : public backend::ClusterLink {
 public:
  MpiClusterLink(int size, bool finalize) : size_(size), finalize_(finalize) {}
  ~MpiClusterLink() override { stop_commands(); }

  int size() const override { return size_; }

  std::vector<RankDevices> gather(std::chrono::milliseconds timeout, std::vector<int>& silent,
                                  std::vector<std::string>& refused) override {
    std::set<int> waiting;
    for (int r = 1; r < size_; ++r) waiting.insert(r);
    std::vector<RankDevices> ranks;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!waiting.empty() && std::chrono::steady_clock::now() < deadline) {
      int arrived = 0;
      MPI_Status status;
      if (MPI_Iprobe(MPI_ANY_SOURCE, kDevicesTag, MPI_COMM_WORLD, &arrived, &status) !=
              MPI_SUCCESS ||
          !arrived) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      std::vector<unsigned char> bytes(static_cast<std::size_t>(std::max(count, 0)));
      const int source = status.MPI_SOURCE;
      const bool received = MPI_Recv(bytes.data(), count, MPI_BYTE, source, kDevicesTag,
                                     MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS;
      if (!waiting.erase(source)) continue;  // a rank answers once
      answered_.push_back(source);
      RankDevices devices;
      std::string why = "the message could not be received";
      if (received && decode(bytes, devices, why)) {
        devices.rank = source;
        ranks.push_back(std::move(devices));
      } else {
        refused.push_back("rank " + std::to_string(source) + " sent " + why +
                          ": its devices are left out");
      }
    }
    // A node waits for rank 0's word: those left behind are told now.
    for (int r : waiting) {
      silent.push_back(r);
      send_end(r);
    }
    std::sort(ranks.begin(), ranks.end(),
              [](const RankDevices& a, const RankDevices& b) { return a.rank < b.rank; });
    timeout_ = timeout;
    for (const RankDevices& r : ranks) live_.insert(r.rank);
    // StarPU runs here (Parasol started it before listing devices): its MPI
    // layer joins it, for the buffers' bytes, on every rank at once. Its
    // shutdown is collective over the whole job: a rank left out could
    // never take part, so commands need every rank.
    if (!live_.empty() && static_cast<int>(live_.size()) == size_ - 1 && starpu_is_initialized()) {
      Writer start;
      start.u32(static_cast<std::uint32_t>(Op::Start));
      for (int r : live_) send(r, start);
      mpi_started_ = starpu_mpi_init_comm(nullptr, nullptr, 0, MPI_COMM_WORLD) == 0;
      if (mpi_started_) progress_ = std::thread([this] { progress(); });
    }
    return ranks;
  }

  bool build(const backend::RemotePlace& place, const std::string& source,
             const std::string& options, backend::RemoteBuild& build) override {
    Writer w;
    const std::uint64_t id = next_id();
    w.u32(static_cast<std::uint32_t>(Op::Build)).u64(id).u32(place.device).str(source).str(options);
    std::vector<unsigned char> reply;
    std::string why;
    if (!ask(place.rank, id, w, reply, why)) {
      build.ok = false;
      build.log = why;
      return false;
    }
    Reader in(reply);
    std::uint64_t echoed = 0;
    std::uint32_t ok = 0, count = 0;
    in.u64(echoed);
    in.u32(ok);
    in.str(build.log);
    in.u64(build.id);
    in.u32(count);
    for (std::uint32_t i = 0; i < count && in.ok(); ++i) in.str(build.kernels.emplace_back());
    build.ok = ok && in.done();
    return true;
  }

  backend::RemoteKernelInfo create_kernel(const backend::RemotePlace& place, std::uint64_t program,
                                          const std::string& name) override {
    Writer w;
    const std::uint64_t id = next_id();
    w.u32(static_cast<std::uint32_t>(Op::CreateKernel)).u64(id).u64(program).str(name);
    std::vector<unsigned char> reply;
    std::string why;
    backend::RemoteKernelInfo info;
    if (!ask(place.rank, id, w, reply, why)) {
      info.err = CL_DEVICE_NOT_AVAILABLE;
      return info;
    }
    Reader in(reply);
    std::uint64_t echoed = 0, wgs = 0, reqd[3] = {0, 0, 0}, preferred = 1;
    std::uint32_t err = 0;
    in.u64(echoed);
    in.u32(err);
    in.u64(info.id);
    in.u64(wgs);
    for (auto& r : reqd) in.u64(r);
    in.u64(preferred);
    in.u64(info.private_mem);
    in.u64(info.local_mem);
    std::uint32_t nargs = 0;
    in.u32(nargs);
    for (std::uint32_t i = 0; i < nargs && in.ok(); ++i) {
      backend::KernelArgInfo& a = info.args.emplace_back();
      std::uint32_t address = 0, access = 0;
      std::uint64_t type_qualifier = 0;
      in.u32(address);
      in.u32(access);
      in.u64(type_qualifier);
      in.str(a.type_name);
      in.str(a.name);
      a.address = address;
      a.access = access;
      a.type_qualifier = type_qualifier;
    }
    info.err = in.done() ? static_cast<cl_int>(err) : CL_INVALID_KERNEL;
    info.work_group_size = wgs;
    info.preferred_multiple = preferred;
    for (int i = 0; i < 3; ++i) info.reqd[i] = reqd[i];
    return info;
  }

  void release_program(int rank, std::uint64_t id) override {
    Writer w;
    w.u32(static_cast<std::uint32_t>(Op::ReleaseProgram)).u64(id);
    tell(rank, w);
  }
  void release_kernel(int rank, std::uint64_t id) override {
    Writer w;
    w.u32(static_cast<std::uint32_t>(Op::ReleaseKernel)).u64(id);
    tell(rank, w);
  }
  void release_storage(std::uint64_t storage) override {
    std::set<int> ranks;
    {
      std::lock_guard lock(mutex_);
      auto it = copies_.find(storage);
      if (it == copies_.end()) return;
      ranks = std::move(it->second);
      copies_.erase(it);
    }
    Writer w;
    w.u32(static_cast<std::uint32_t>(Op::ReleaseStorage)).u64(storage);
    for (int r : ranks) tell(r, w);
  }

  void launch(backend::RemoteLaunch l, Done done) override {
    const int rank = l.place.rank;
    Writer w;
    const std::uint64_t id = next_id();
    w.u32(static_cast<std::uint32_t>(Op::Launch)).u64(id).u32(l.place.device).u64(l.kernel);
    w.u32(l.work_dim);
    for (const auto* v : {&l.offset, &l.global, &l.local})
      for (std::size_t x : *v) w.u64(x);
    w.u32(static_cast<std::uint32_t>(l.args.size()));
    Launch pending;
    pending.done = std::move(done);
    std::vector<Carried> sends;
    bool live = false;
    {
      std::lock_guard lock(mutex_);
      // Each storage crosses once per launch, however many arguments name it.
      std::map<std::uint64_t, std::size_t> seen;  // storage -> argument that carries it
      for (std::size_t i = 0; i < l.args.size(); ++i)
        if (l.args[i].kind == backend::RemoteArg::Kind::Buffer) {
          auto [at, fresh] = seen.emplace(l.args[i].storage, i);
          if (!fresh) l.args[at->second].written |= l.args[i].written;
        }
      for (std::size_t i = 0; i < l.args.size(); ++i) {
        const backend::RemoteArg& a = l.args[i];
        w.u32(static_cast<std::uint32_t>(a.kind));
        switch (a.kind) {
          case backend::RemoteArg::Kind::Value: w.bytes(a.bytes.data(), a.bytes.size()); break;
          case backend::RemoteArg::Kind::Local: w.u64(a.local_size); break;
          case backend::RemoteArg::Kind::NullBuffer: break;
          case backend::RemoteArg::Kind::Buffer: {
            const bool carries = seen[a.storage] == i;
            const std::int64_t in_tag = carries ? next_tag_++ : -1;
            const std::int64_t out_tag = carries && a.written ? next_tag_++ : -1;
            w.u64(a.storage).u64(a.storage_size).u64(a.offset).u64(a.size);
            w.u32(a.written).i64(in_tag).i64(out_tag);
            if (carries) {
              sends.push_back({a.handle, in_tag, a.storage_size});
              copies_[a.storage].insert(rank);
            }
            if (out_tag >= 0) pending.results.push_back({a.handle, out_tag, a.storage_size});
            break;
          }
        }
      }
      live = live_.count(rank) && progress_.joinable();
      if (live) {
        pending.rank = rank;
        if (!busy(rank)) heard_[rank] = Clock::now();
        pending.inputs = std::move(sends);
        launches_.emplace(id, std::move(pending));
      }
    }
    if (!live) {
      pending.done(CL_DEVICE_NOT_AVAILABLE, given_up_why(rank));
      return;
    }
    send(rank, w);
    // The buffers go once the node says its receives are posted
    // (replied()).
  }

  void stop_commands() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    if (!progress_.joinable()) return;
    progress_.join();
    std::vector<Done> given_up;
    {
      std::lock_guard lock(mutex_);
      for (auto& [id, l] : launches_) given_up.push_back(std::move(l.done));
      launches_.clear();
    }
    for (Done& d : given_up) d(CL_DEVICE_NOT_AVAILABLE, "the process ended with it in flight");
    unregister_retired();
    // StarPU-MPI's shutdown is a barrier of every rank, after every
    // transfer: with a node given up, or a transfer to one that never
    // ends, it would never return; StarPU-MPI is left as it is then.
    if (mpi_started_ && transfers_.load() == 0 && static_cast<int>(live_.size()) == size_ - 1) {
      Writer stop;
      stop.u32(static_cast<std::uint32_t>(Op::Stop));
      for (int r : live_) send(r, stop);
      starpu_mpi_shutdown();
    }
    mpi_started_ = false;
  }

  bool carries_commands() const override { return mpi_started_; }

  void end() override {
    stop_commands();
    for (int r : answered_) send_end(r);
    if (finalize_) MPI_Finalize();
  }

 private:
  // Empty: MPI sends it eagerly, whatever the node is doing.
  static void send_end(int rank) {
    MPI_Send(nullptr, 0, MPI_BYTE, rank, kEndTag, MPI_COMM_WORLD);
  }

  // A buffer's storage crossing the network: its handle here, the
  // transfer's tag, its size.
  struct Carried {
    starpu_data_handle_t handle;
    std::int64_t tag;
    std::size_t size;
  };
  // One transfer in flight, its callbacks' argument. StarPU-MPI sends from
  // or receives into its staging: a transfer that never ends (a node that
  // stopped answering) holds that, never the application's buffer.
  struct Transfer {
    MpiClusterLink* link;
    std::uint64_t launch;
    int rank;
    Carried carried;
    std::unique_ptr<StagedBytes> staging;
  };
  // A launch in flight: its node's status, then the buffers it wrote.
  struct Launch {
    int rank = -1;
    Done done;
    std::vector<Carried> inputs, results;
    bool status_in = false;
    std::size_t receiving = 0;
    cl_int status = CL_COMPLETE;
  };
  // A request waiting for its reply.
  struct Question {
    int rank = -1;
    bool answered = false;
    std::vector<unsigned char> reply;
    bool given_up = false;
  };
  std::uint64_t next_id() { return next_id_.fetch_add(1) + 1; }

  void send(int rank, Writer& w) {
    std::vector<unsigned char>& bytes = w.out();
    MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, rank, kRequestTag,
             MPI_COMM_WORLD);
  }
  // A request without a reply, to a node still in the job.
  void tell(int rank, Writer& w) {
    {
      std::lock_guard lock(mutex_);
      if (!live_.count(rank) || stopping_) return;
    }
    send(rank, w);
  }
  // A request and its reply; false, with why, when the node was given up.
  bool ask(int rank, std::uint64_t id, Writer& w, std::vector<unsigned char>& reply,
           std::string& why) {
    std::unique_lock lock(mutex_);
    if (!live_.count(rank) || !progress_.joinable()) {
      why = given_up_why(rank);
      return false;
    }
    if (!busy(rank)) heard_[rank] = Clock::now();
    questions_[id].rank = rank;
    lock.unlock();
    send(rank, w);
    lock.lock();
    answered_cv_.wait(lock, [&] {
      const Question& q = questions_[id];
      return q.answered || q.given_up;
    });
    auto q = questions_.find(id);
    const bool answered = q->second.answered;
    reply = std::move(q->second.reply);
    questions_.erase(q);
    if (!answered) why = given_up_why(rank);
    return answered;
  }

  // Open MPI 4.1 does not tell a stuck node from a dead one.
  std::string given_up_why(int rank) const {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", static_cast<double>(timeout_.count()) / 1000.0);
    return "rank " + std::to_string(rank) + " did not answer within " + seconds +
           " s (PARASOL_CLUSTER_TIMEOUT): it is stuck or has died; it was given up, its devices "
           "take no more commands";
  }

  // Work in flight on the rank (under mutex_).
  bool busy(int rank) const {
    for (const auto& [id, l] : launches_)
      if (l.rank == rank) return true;
    for (const auto& [id, q] : questions_)
      if (q.rank == rank) return true;
    return false;
  }

  // The buffer is in main RAM, held for reading: its bytes go to the
  // staging, then to the node.
  static void snapshot(void* arg) {
    auto* t = static_cast<Transfer*>(arg);
    std::memcpy(t->staging->bytes.data(),
                starpu_data_handle_to_pointer(t->carried.handle, STARPU_MAIN_RAM),
                t->carried.size);
    starpu_data_release_on_node(t->carried.handle, STARPU_MAIN_RAM);
    starpu_mpi_isend_detached(t->staging->handle, t->rank, t->carried.tag, MPI_COMM_WORLD,
                              &MpiClusterLink::sent, t);
  }
  static void sent(void* arg) {
    auto* t = static_cast<Transfer*>(arg);
    t->link->retire(t, false);
  }
  // A result is in its staging: into the buffer, held for writing.
  static void received(void* arg) {
    auto* t = static_cast<Transfer*>(arg);
    starpu_data_acquire_on_node_cb(t->carried.handle, STARPU_MAIN_RAM, STARPU_W,
                                   &MpiClusterLink::landed, t);
  }
  static void landed(void* arg) {
    auto* t = static_cast<Transfer*>(arg);
    std::memcpy(starpu_data_handle_to_pointer(t->carried.handle, STARPU_MAIN_RAM),
                t->staging->bytes.data(), t->carried.size);
    starpu_data_release_on_node(t->carried.handle, STARPU_MAIN_RAM);
    t->link->retire(t, true);
  }
  // A transfer is over: its staging is let go on the layer's thread (not
  // in a StarPU callback, where unregistering is not allowed).
  void retire(Transfer* t, bool result) {
    {
      std::lock_guard lock(mutex_);
      retired_.push_back(std::move(t->staging));
      if (result) arrived_.push_back(t->launch);
    }
    transfers_--;
    delete t;
  }
  void unregister_retired() {
    std::vector<std::unique_ptr<StagedBytes>> retired;  // unregistered after the lock goes
    std::lock_guard lock(mutex_);
    retired.swap(retired_);
  }

  // The layer's thread: replies, results, and the nodes' silence.
  void progress() {
    auto last_busy = Clock::now();
    for (;;) {
      std::vector<std::pair<Done, std::pair<cl_int, std::string>>> finished;
      bool idle = true;
      {
        std::unique_lock lock(mutex_);
        if (stopping_) return;
        if (!launches_.empty() || !questions_.empty()) last_busy = Clock::now();
        for (std::uint64_t id : arrived_) {
          auto it = launches_.find(id);
          if (it != launches_.end() && --it->second.receiving == 0) {
            finished.push_back({std::move(it->second.done), {it->second.status, {}}});
            launches_.erase(it);
          }
        }
        arrived_.clear();
        // Silent past the timeout with work in flight: given up.
        const auto now = Clock::now();
        for (auto r = live_.begin(); r != live_.end();) {
          const int rank = *r;
          if (!busy(rank) || now - heard_[rank] < timeout_) {
            ++r;
            continue;
          }
          r = live_.erase(r);
          const std::string why = given_up_why(rank);
          for (auto it = launches_.begin(); it != launches_.end();) {
            if (it->second.rank != rank) {
              ++it;
              continue;
            }
            finished.push_back({std::move(it->second.done), {CL_DEVICE_NOT_AVAILABLE, why}});
            it = launches_.erase(it);
          }
          for (auto& [id, q] : questions_)
            if (q.rank == rank) q.given_up = true;
          answered_cv_.notify_all();
        }
      }
      for (auto& [done, result] : finished) done(result.first, result.second);
      unregister_retired();

      int arrived = 0;
      MPI_Status status;
      if (MPI_Iprobe(MPI_ANY_SOURCE, kReplyTag, MPI_COMM_WORLD, &arrived, &status) ==
              MPI_SUCCESS &&
          arrived) {
        idle = false;
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        std::vector<unsigned char> bytes(static_cast<std::size_t>(std::max(count, 0)));
        const int source = status.MPI_SOURCE;
        MPI_Recv(bytes.data(), count, MPI_BYTE, source, kReplyTag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        replied(source, std::move(bytes));
      }
      // Quick to answer while commands come, sparing the core otherwise.
      if (!idle) last_busy = Clock::now();
      if (idle)  // nothing received
        std::this_thread::sleep_for(Clock::now() - last_busy < kWarm
                                        ? std::chrono::microseconds(100)
                                        : std::chrono::microseconds(2000));
    }
  }

  void replied(int source, std::vector<unsigned char> bytes) {
    Reader in(bytes);
    std::uint64_t id = 0;
    in.u64(id);
    std::unique_lock lock(mutex_);
    heard_[source] = Clock::now();
    if (id == 0) return;  // a heartbeat
    if (auto q = questions_.find(id); q != questions_.end()) {
      q->second.reply = std::move(bytes);
      q->second.answered = true;
      answered_cv_.notify_all();
      return;
    }
    auto it = launches_.find(id);
    if (it == launches_.end()) return;
    Launch& l = it->second;
    std::uint32_t status = 0;
    in.u32(status);
    if (in.done() && static_cast<cl_int>(status) == CL_SUBMITTED) {
      // The node waits for the buffers: each one's bytes as they are now,
      // into a handle of the layer's own that StarPU-MPI sends, the buffer
      // held only for the copy.
      const std::vector<Carried> inputs = std::move(l.inputs);
      transfers_ += inputs.size();
      lock.unlock();
      for (const Carried& c : inputs) {
        auto* t = new Transfer{this, id, source, c, std::make_unique<StagedBytes>(c.size)};
        starpu_data_acquire_on_node_cb(c.handle, STARPU_MAIN_RAM, STARPU_R,
                                       &MpiClusterLink::snapshot, t);
      }
      return;
    }
    l.status = in.done() ? static_cast<cl_int>(status) : CL_INVALID_VALUE;
    l.status_in = true;
    if (l.status != CL_COMPLETE || l.results.empty()) {
      Done done = std::move(l.done);
      const cl_int s = l.status;
      launches_.erase(it);
      lock.unlock();
      done(s, s == CL_COMPLETE ? std::string() : "the kernel failed on rank " + std::to_string(source));
      return;
    }
    l.receiving = l.results.size();
    const auto results = l.results;
    transfers_ += results.size();
    lock.unlock();
    for (const Carried& c : results) {
      auto* t = new Transfer{this, id, source, c, std::make_unique<StagedBytes>(c.size)};
      starpu_mpi_irecv_detached(t->staging->handle, source, c.tag, MPI_COMM_WORLD,
                                &MpiClusterLink::received, t);
    }
  }

  int size_;
  bool finalize_;  // MPI was initialised here, not by the application
  std::vector<int> answered_;
  std::chrono::milliseconds timeout_{60000};
  bool mpi_started_ = false;
  std::thread progress_;
  std::mutex mutex_;
  std::condition_variable answered_cv_;
  bool stopping_ = false;
  std::set<int> live_;  // nodes that answered and were not given up
  std::map<int, Clock::time_point> heard_;
  std::map<std::uint64_t, Launch> launches_;
  std::map<std::uint64_t, Question> questions_;
  std::vector<std::uint64_t> arrived_;
  std::vector<std::unique_ptr<StagedBytes>> retired_;
  std::map<std::uint64_t, std::set<int>> copies_;  // storage -> ranks holding a copy
  std::atomic<std::uint64_t> next_id_{0};
  std::int64_t next_tag_ = 1;  // under mutex_
  std::atomic<std::size_t> transfers_{0};  // StarPU-MPI transfers not yet done
};

}  // namespace
}  // namespace parasol::cluster

extern "C" __attribute__((visibility("default"))) parasol::backend::ClusterLink*
parasol_open_cluster_link(std::string& why) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    parasol::cluster::skip_finalize_fence();
    // Several threads of rank 0 may call MPI (the application's first
    // device query, the exit handler).
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
      why = "MPI_Init_thread failed";
      return nullptr;
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = -1, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) {
    why = "MPI says this process is rank " + std::to_string(rank);
    return nullptr;
  }
  return new parasol::cluster::MpiClusterLink(size, !initialized);
}
