// Rank 0 of an MPI job (`mpirun -np 1 <this> : -np N parasol-node`, every
// rank on this machine with the same vendors): what its Parasol platform
// lists of the other ranks' devices. Each test case is one ctest test with
// its own mpirun (test/cluster/CMakeLists.txt).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/parasol_test.h"

namespace {

using namespace parasol_test;

int world_size() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  return size ? std::atoi(size) : 1;
}

std::string host_name() {
  char name[256] = "";
  gethostname(name, sizeof name - 1);
  return name;
}

std::string rank_suffix(int rank) {
  return " (rank " + std::to_string(rank) + " on " + host_name() + ")";
}

std::vector<unsigned char> answer(cl_device_id d, cl_device_info param) {
  std::size_t size = 0;
  CL_REQUIRE(clGetDeviceInfo(d, param, 0, nullptr, &size));
  std::vector<unsigned char> value(size);
  CL_REQUIRE(clGetDeviceInfo(d, param, size, value.data(), nullptr));
  return value;
}

template <typename T>
T scalar(cl_device_id d, cl_device_info param) {
  T value{};
  CL_REQUIRE(clGetDeviceInfo(d, param, sizeof value, &value, nullptr));
  return value;
}

// Devices of this machine: the first ones listed, without a rank in their
// name.
std::vector<cl_device_id> local_of(const std::vector<cl_device_id>& all) {
  std::vector<cl_device_id> local;
  for (cl_device_id d : all)
    if (device_name(d).find(" (rank ") == std::string::npos) local.push_back(d);
  return local;
}

// Parasol's start (the first device query), with what it logged on stderr
// meanwhile and how long it took.
struct Start {
  std::vector<cl_device_id> devices;
  std::string log;
  double seconds = 0;
};

Start start_parasol() {
  Start s;
  char log_path[] = "/tmp/parasol-cluster-log-XXXXXX";
  const int log_fd = mkstemp(log_path);
  REQUIRE(log_fd >= 0);
  std::fflush(stderr);
  const int saved_stderr = dup(2);
  dup2(log_fd, 2);
  const auto t0 = std::chrono::steady_clock::now();
  s.devices = devices();
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fflush(stderr);
  dup2(saved_stderr, 2);
  close(saved_stderr);
  close(log_fd);
  std::ifstream in(log_path);
  std::stringstream text;
  text << in.rdbuf();
  s.log = text.str();
  unlink(log_path);
  return s;
}

}  // namespace

TEST_CASE("rank 0 lists every rank's devices after its own, named with their rank and host",
          "[listed]") {
  const int ranks = world_size();
  REQUIRE(ranks >= 2);
  const std::vector<cl_device_id> all = devices();
  const std::vector<cl_device_id> local = local_of(all);
  REQUIRE(!local.empty());
  // Every rank runs this machine's vendors: each lists the same devices.
  REQUIRE(all.size() == local.size() * static_cast<std::size_t>(ranks));
  for (std::size_t i = 0; i < local.size(); ++i) REQUIRE(all[i] == local[i]);

  for (int rank = 1; rank < ranks; ++rank)
    for (std::size_t i = 0; i < local.size(); ++i) {
      cl_device_id remote = all[rank * local.size() + i];
      cl_device_id same = local[i];
      INFO("rank " << rank << ", device " << i << ": " << device_name(remote));
      REQUIRE(device_name(remote) == device_name(same) + rank_suffix(rank));
      REQUIRE(vendor_of(remote) == vendor_of(same));
      // The node's answers, as its Parasol gave them.
      for (cl_device_info param :
           {CL_DEVICE_TYPE, CL_DEVICE_VENDOR, CL_DEVICE_VERSION, CL_DRIVER_VERSION,
            CL_DEVICE_OPENCL_C_VERSION, CL_DEVICE_EXTENSIONS, CL_DEVICE_MAX_COMPUTE_UNITS,
            CL_DEVICE_MAX_WORK_GROUP_SIZE, CL_DEVICE_MAX_WORK_ITEM_SIZES,
            CL_DEVICE_GLOBAL_MEM_SIZE, CL_DEVICE_MAX_MEM_ALLOC_SIZE, CL_DEVICE_LOCAL_MEM_SIZE,
            CL_DEVICE_ADDRESS_BITS, CL_DEVICE_IMAGE_SUPPORT, CL_DEVICE_QUEUE_PROPERTIES,
            CL_DEVICE_PROFILE, CL_DEVICE_NUMERIC_VERSION, CL_DEVICE_EXTENSIONS_WITH_VERSION}) {
        INFO("param 0x" << std::hex << param);
        REQUIRE(answer(remote, param) == answer(same, param));
      }
      REQUIRE(scalar<cl_platform_id>(remote, CL_DEVICE_PLATFORM) == parasol_platform());
      REQUIRE(scalar<cl_device_id>(remote, CL_DEVICE_PARENT_DEVICE) == nullptr);
    }
}

TEST_CASE("another rank's device is available: contexts take it, alone or mixed", "[listed]") {
  const std::vector<cl_device_id> all = devices();
  const std::vector<cl_device_id> local = local_of(all);
  REQUIRE(all.size() > local.size());
  cl_device_id remote = all.back();
  REQUIRE(scalar<cl_bool>(remote, CL_DEVICE_AVAILABLE) == CL_TRUE);

  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &remote, nullptr, nullptr, &err);
  CL_REQUIRE(err);
  clReleaseContext(ctx);
  cl_device_id mixed[] = {local.front(), remote};
  ctx = clCreateContext(nullptr, 2, mixed, nullptr, nullptr, &err);
  CL_REQUIRE(err);
  clReleaseContext(ctx);

  // By type: every rank's devices.
  cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(parasol_platform()), 0};
  ctx = clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, nullptr, nullptr, &err);
  CL_REQUIRE(err);
  cl_uint count = 0;
  CL_REQUIRE(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, nullptr));
  CHECK(count == all.size());
  clReleaseContext(ctx);

  // No partition is offered, and none is made.
  cl_device_partition_property equally[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  cl_uint made = 0;
  CHECK(clCreateSubDevices(remote, equally, 0, nullptr, &made) == CL_INVALID_VALUE);
  CHECK(scalar<cl_uint>(remote, CL_DEVICE_PARTITION_MAX_SUB_DEVICES) == 0);
}

TEST_CASE("without PARASOL_REMOTE_DEVICES rank 0 lists only its own devices", "[unlisted]") {
  REQUIRE(world_size() >= 2);
  const std::vector<cl_device_id> all = devices();
  REQUIRE(!all.empty());
  REQUIRE(local_of(all).size() == all.size());
}

// The other rank never reports, silent or dead (test/cluster/faulty_rank.cpp):
// rank 0 waits PARASOL_CLUSTER_TIMEOUT, says so, and goes on with its own
// devices.
TEST_CASE("a rank that never reports its devices delays rank 0 by the timeout only",
          "[missing]") {
  REQUIRE(world_size() == 2);
  const double timeout_s = std::atof(std::getenv("PARASOL_CLUSTER_TIMEOUT"));
  REQUIRE(timeout_s > 0);
  const Start s = start_parasol();
  INFO("Parasol's log: " << s.log);
  REQUIRE(!s.devices.empty());
  CHECK(local_of(s.devices).size() == s.devices.size());
  CHECK(s.seconds >= timeout_s);
  CHECK(s.seconds < timeout_s + 30);  // Parasol's own start included
  CHECK(s.log.find("rank 1 did not report its devices within") != std::string::npos);
  // Its own devices work as ever.
  Context ctx({s.devices.front()});
}

// The other rank sends what is not a device list: refused at once, logged.
TEST_CASE("a rank whose device list cannot be read is left out without waiting", "[refused]") {
  REQUIRE(world_size() == 2);
  const double timeout_s = std::atof(std::getenv("PARASOL_CLUSTER_TIMEOUT"));
  const Start s = start_parasol();
  INFO("Parasol's log: " << s.log);
  REQUIRE(!s.devices.empty());
  CHECK(local_of(s.devices).size() == s.devices.size());
  CHECK(s.seconds < timeout_s);
  CHECK(s.log.find("rank 1 sent not a Parasol node's device list") != std::string::npos);
}

// Rank 0 whose StarPU cannot start (STARPU_NCPU=0 STARPU_NOPENCL=0) lists no
// device, so no device query joins the job: Parasol joins at exit, and the
// node ends (the test's mpirun returns).
TEST_CASE("rank 0 without StarPU lists no device", "[nostarpu]") {
  REQUIRE(world_size() >= 2);
  cl_uint count = 0;
  CHECK(clGetDeviceIDs(parasol_platform(), CL_DEVICE_TYPE_ALL, 0, nullptr, &count) ==
        CL_DEVICE_NOT_FOUND);
  CHECK(count == 0);
}

// Run without mpirun: Parasol loads nothing of MPI.
TEST_CASE("outside mpirun no MPI library is loaded", "[local]") {
  REQUIRE(std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr);
  REQUIRE(!devices().empty());
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    INFO(line);
    CHECK(line.find("libmpi") == std::string::npos);
    CHECK(line.find("libParasolMPI") == std::string::npos);
  }
}
