// parasol-node: Parasol's program for the ranks other than 0 of an MPI job
// (`mpirun -np 1 ./app : -np N parasol-node`). It reports this machine's
// Parasol devices to rank 0 (cluster/protocol.h), runs the commands rank 0
// sends for them (cluster/node_commands.h), one at a time on a thread of
// their own, and stays in the job until rank 0 says end.
//
// MPI comes first: rank 0's MPI_Init waits for every rank's, and Parasol's
// start here (StarPU, vendors, a first bus calibration) may take long. The
// devices are read on a thread of their own, so that a vendor stuck in its
// start keeps no one waiting: rank 0 gives up after its timeout and says
// end, and the node leaves then. While waiting, the node polls with sleeps:
// MPI's blocking waits would spin a core for the whole run.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster/local_device_answers.h"
#include "cluster/node_commands.h"
#include "cluster/protocol.h"

namespace {

namespace backend = parasol::backend;
namespace cluster = parasol::cluster;

std::string host_name() {
  char name[256] = "";
  gethostname(name, sizeof name - 1);
  return name;
}

bool test(MPI_Request& request) {
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  return done;
}

// Rank 0's requests, run in order on a thread of their own: the MPI loop
// keeps receiving and showing that the node is alive meanwhile.
class Executor {
 public:
  explicit Executor(int rank) : thread_([this, rank] { loop(rank); }) {}
  ~Executor() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void push(std::vector<unsigned char> request) {
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(std::move(request));
      busy_ = true;
    }
    wake_.notify_all();
  }
  // Work queued or running.
  bool busy() {
    std::lock_guard lock(mutex_);
    return busy_;
  }

 private:
  void loop(int rank) {
    // StarPU runs here (Parasol started it, listing the devices): its MPI
    // layer joins it for the buffers' bytes when rank 0 says start.
    std::optional<cluster::NodeCommands> commands;
    commands.emplace([](const std::vector<unsigned char>& reply) {
      MPI_Send(reply.data(), static_cast<int>(reply.size()), MPI_BYTE, 0, cluster::kReplyTag,
               MPI_COMM_WORLD);
    });
    if (!commands->ok())
      std::fprintf(stderr, "[parasol-node] rank %d: %s; commands will fail\n", rank,
                   commands->why().c_str());
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || !requests_.empty(); });
      if (requests_.empty()) break;
      std::vector<unsigned char> request = std::move(requests_.front());
      requests_.pop_front();
      lock.unlock();
      commands->run(request);
      lock.lock();
      busy_ = !requests_.empty();
    }
    lock.unlock();
    commands.reset();
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::vector<unsigned char>> requests_;
  bool busy_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  cluster::skip_finalize_fence();
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "[parasol-node] MPI_Init_thread failed\n");
    return 1;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::fprintf(stderr,
                 "[parasol-node] runs on the ranks after the application's: "
                 "mpirun -np 1 ./app : -np N parasol-node\n");
    MPI_Finalize();
    return 2;
  }

  MPI_Request end;
  MPI_Irecv(nullptr, 0, MPI_BYTE, 0, cluster::kEndTag, MPI_COMM_WORLD, &end);

  std::vector<unsigned char> message;
  std::atomic<bool> read{false};
  std::thread reader([&] {
    backend::RankDevices devices;
    devices.rank = rank;
    devices.host = host_name();
    std::string why;
    devices.devices = cluster::local_device_answers(why);
    if (devices.devices.empty())
      std::fprintf(stderr, "[parasol-node] rank %d on %s: %s; it reports no device\n", rank,
                   devices.host.c_str(), why.c_str());
    message = cluster::encode(devices);
    read.store(true, std::memory_order_release);
  });

  MPI_Request sent = MPI_REQUEST_NULL;
  bool sending = false;
  std::optional<Executor> executor;
  auto beat = std::chrono::steady_clock::now();
  auto last_busy = beat;
  while (!test(end)) {
    if (!sending && read.load(std::memory_order_acquire)) {
      MPI_Isend(message.data(), static_cast<int>(message.size()), MPI_BYTE, 0,
                cluster::kDevicesTag, MPI_COMM_WORLD, &sent);
      sending = true;
      executor.emplace(rank);
    }
    int arrived = 0;
    MPI_Status status;
    if (executor &&
        MPI_Iprobe(0, cluster::kRequestTag, MPI_COMM_WORLD, &arrived, &status) == MPI_SUCCESS &&
        arrived) {
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      std::vector<unsigned char> request(static_cast<std::size_t>(std::max(count, 0)));
      MPI_Recv(request.data(), count, MPI_BYTE, 0, cluster::kRequestTag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      executor->push(std::move(request));
      last_busy = std::chrono::steady_clock::now();
      continue;
    }
    // While it works, the node shows rank 0 that it is alive.
    const auto now = std::chrono::steady_clock::now();
    if (executor && executor->busy() &&
        now - beat > std::chrono::milliseconds(cluster::kHeartbeatMs)) {
      beat = now;
      const std::uint64_t alive = 0;
      MPI_Send(&alive, sizeof alive, MPI_BYTE, 0, cluster::kReplyTag, MPI_COMM_WORLD);
    }
    // Quick to take requests while they come, sparing the core otherwise.
    if (executor && executor->busy()) last_busy = now;
    std::this_thread::sleep_for(sending && now - last_busy < std::chrono::milliseconds(50)
                                    ? std::chrono::microseconds(200)
                                    : std::chrono::microseconds(2000));
  }
  // Rank 0 ends at its exit: a command still running here is abandoned
  // (its results have no one to go to).
  if (executor && executor->busy()) {
    std::fprintf(stderr, "[parasol-node] rank %d: rank 0 ended with a command in flight\n", rank);
    std::_Exit(0);
  }
  executor.reset();
  // Rank 0 took the list, or gave up on it: a send it will never receive
  // completes no more.
  if (sending && !test(sent)) MPI_Request_free(&sent);
  const bool stuck = !read.load(std::memory_order_acquire);
  if (stuck) {
    std::fprintf(stderr,
                 "[parasol-node] rank %d: rank 0 stopped waiting before Parasol listed this "
                 "machine's devices\n",
                 rank);
    reader.detach();
  } else {
    reader.join();
  }
  MPI_Finalize();
  // A reader still inside a vendor's start must not hold the exit back.
  if (stuck) std::_Exit(0);
  return 0;
}
