// What crosses the network between rank 0 and a node (cluster/protocol.h),
// without MPI: a device list read back as written, and bytes that are not
// one refused without reading past them.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

#include "cluster/protocol.h"

namespace {

using parasol::backend::DeviceAnswers;
using parasol::backend::RankDevices;

RankDevices sample() {
  RankDevices r;
  r.rank = 3;
  r.host = "node-a";
  DeviceAnswers gpu;
  gpu.answers.emplace_back(CL_DEVICE_NAME, std::vector<unsigned char>{'g', 'p', 'u', 0});
  gpu.answers.emplace_back(CL_DEVICE_MAX_COMPUTE_UNITS, std::vector<unsigned char>{8, 0, 0, 0});
  gpu.answers.emplace_back(CL_DEVICE_BUILT_IN_KERNELS, std::vector<unsigned char>{});
  r.devices.push_back(gpu);
  r.devices.push_back(DeviceAnswers{});
  return r;
}

}  // namespace

TEST_CASE("a node's device list is read back as it was written") {
  const RankDevices sent = sample();
  RankDevices got;
  std::string why;
  REQUIRE(parasol::cluster::decode(parasol::cluster::encode(sent), got, why));
  CHECK(got.host == sent.host);
  CHECK(got.rank == -1);  // the message's source says it, not the message
  REQUIRE(got.devices.size() == 2);
  CHECK(got.devices[0].answers == sent.devices[0].answers);
  CHECK(got.devices[1].answers.empty());
  REQUIRE(got.devices[0].find(CL_DEVICE_MAX_COMPUTE_UNITS));
  CHECK((*got.devices[0].find(CL_DEVICE_MAX_COMPUTE_UNITS))[0] == 8);
  CHECK(got.devices[0].find(CL_DEVICE_VENDOR) == nullptr);
}

TEST_CASE("bytes that are not a whole device list of this version are refused") {
  const std::vector<unsigned char> bytes = parasol::cluster::encode(sample());
  RankDevices got;
  std::string why;
  SECTION("every truncation") {
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      INFO(n << " of " << bytes.size() << " bytes");
      RankDevices part;
      CHECK_FALSE(parasol::cluster::decode({bytes.data(), n}, part, why));
    }
  }
  SECTION("trailing bytes") {
    std::vector<unsigned char> longer = bytes;
    longer.push_back(0);
    CHECK_FALSE(parasol::cluster::decode(longer, got, why));
  }
  SECTION("another protocol version") {
    std::vector<unsigned char> other = bytes;
    other[4] ^= 0x40;  // the version follows the 4-byte magic
    CHECK_FALSE(parasol::cluster::decode(other, got, why));
    CHECK(why.find("protocol version") != std::string::npos);
  }
  SECTION("a length larger than the message") {
    std::vector<unsigned char> other = bytes;
    const std::uint32_t huge = 0xFFFFFFF0u;
    std::memcpy(other.data() + 8, &huge, sizeof huge);  // the host name's length
    CHECK_FALSE(parasol::cluster::decode(other, got, why));
  }
}
