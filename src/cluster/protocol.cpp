#include "cluster/protocol.h"

#include <cstdlib>
#include <cstring>

namespace parasol::cluster {
namespace {

// "PRSL" and the protocol's version: a node of another Parasol is told
// apart, not misread.
constexpr std::uint32_t kMagic = 0x4C535250;
constexpr std::uint32_t kVersion = 3;

void put32(std::vector<unsigned char>& out, std::uint32_t v) {
  const auto* p = reinterpret_cast<const unsigned char*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

void put_bytes(std::vector<unsigned char>& out, const void* data, std::size_t n) {
  put32(out, static_cast<std::uint32_t>(n));
  const auto* p = static_cast<const unsigned char*>(data);
  out.insert(out.end(), p, p + n);
}

}  // namespace

Writer& Writer::raw(const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  out_.insert(out_.end(), p, p + n);
  return *this;
}

Writer& Writer::bytes(const void* data, std::size_t n) {
  put_bytes(out_, data, n);
  return *this;
}

bool Reader::raw(void* v, std::size_t n) {
  if (!ok_ || bytes_.size() - at_ < n) return ok_ = false;
  std::memcpy(v, bytes_.data() + at_, n);
  at_ += n;
  return true;
}

bool Reader::bytes(std::vector<unsigned char>& out) {
  std::uint32_t n = 0;
  if (!u32(n) || bytes_.size() - at_ < n) return ok_ = false;
  out.assign(bytes_.begin() + static_cast<std::ptrdiff_t>(at_),
             bytes_.begin() + static_cast<std::ptrdiff_t>(at_ + n));
  at_ += n;
  return true;
}

bool Reader::str(std::string& out) {
  std::vector<unsigned char> b;
  if (!bytes(b)) return false;
  out.assign(b.begin(), b.end());
  return true;
}

std::vector<unsigned char> encode(const backend::RankDevices& devices) {
  std::vector<unsigned char> out;
  put32(out, kMagic);
  put32(out, kVersion);
  put_bytes(out, devices.host.data(), devices.host.size());
  put32(out, static_cast<std::uint32_t>(devices.devices.size()));
  for (const backend::DeviceAnswers& d : devices.devices) {
    put32(out, static_cast<std::uint32_t>(d.answers.size()));
    for (const auto& [param, bytes] : d.answers) {
      put32(out, param);
      put_bytes(out, bytes.data(), bytes.size());
    }
  }
  return out;
}

bool decode(std::span<const unsigned char> bytes, backend::RankDevices& devices,
            std::string& why) {
  Reader in(bytes);
  std::uint32_t magic = 0, version = 0, count = 0;
  if (!in.u32(magic) || magic != kMagic) {
    why = "not a Parasol node's device list";
    return false;
  }
  if (!in.u32(version) || version != kVersion) {
    why = "a device list of protocol version " + std::to_string(version) + ", this Parasol's is " +
          std::to_string(kVersion) + " (another Parasol version runs there)";
    return false;
  }
  std::vector<unsigned char> host;
  bool ok = in.bytes(host) && in.u32(count);
  devices.host.assign(host.begin(), host.end());
  for (std::uint32_t i = 0; ok && i < count; ++i) {
    backend::DeviceAnswers& d = devices.devices.emplace_back();
    std::uint32_t answers = 0;
    ok = in.u32(answers);
    for (std::uint32_t a = 0; ok && a < answers; ++a) {
      std::uint32_t param = 0;
      std::vector<unsigned char> value;
      ok = in.u32(param) && in.bytes(value);
      if (ok) d.answers.emplace_back(param, std::move(value));
    }
  }
  if (!ok || !in.done()) {
    why = "a truncated or malformed device list";
    return false;
  }
  return true;
}

void skip_finalize_fence() { setenv("OMPI_MCA_async_mpi_finalize", "1", 0); }

}  // namespace parasol::cluster
