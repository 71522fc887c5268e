// Shared by the libFuzzer targets: a Parasol context over the PoCL devices
// only (Oclgrind simulates every work-item and is too slow to fuzz with),
// reached through the ICD loader like any application would.
#pragma once

#include <CL/cl.h>
#include <CL/cl_parasol.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace parasol_fuzz {

inline std::string platform_name(cl_platform_id p) {
  char name[256] = "";
  clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
  return name;
}

[[noreturn]] inline void die(const char* what) {
  std::fprintf(stderr, "fuzz set-up failed: %s\n", what);
  std::abort();
}

struct PoclContext {
  cl_context ctx = nullptr;
  std::vector<cl_device_id> devices;
};

inline PoclContext make_pocl_context() {
  cl_uint n = 0;
  clGetPlatformIDs(0, nullptr, &n);
  std::vector<cl_platform_id> ps(n);
  if (n) clGetPlatformIDs(n, ps.data(), nullptr);
  cl_platform_id parasol = nullptr;
  for (auto p : ps)
    if (platform_name(p) == "Parasol") parasol = p;
  if (!parasol) die("no Parasol platform (run through build/test/suite-env)");
  cl_uint nd = 0;
  clGetDeviceIDs(parasol, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
  std::vector<cl_device_id> all(nd);
  if (nd) clGetDeviceIDs(parasol, CL_DEVICE_TYPE_ALL, nd, all.data(), nullptr);
  PoclContext pc;
  for (auto d : all) {
    char vendor[256] = "";
    clGetDeviceInfo(d, CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL, sizeof vendor, vendor, nullptr);
    if (std::strncmp(vendor, "Portable Computing Language", 27) == 0) pc.devices.push_back(d);
  }
  if (pc.devices.empty()) die("no PoCL device behind Parasol");
  cl_int err = CL_SUCCESS;
  pc.ctx = clCreateContext(nullptr, static_cast<cl_uint>(pc.devices.size()), pc.devices.data(),
                           nullptr, nullptr, &err);
  if (err != CL_SUCCESS) die("clCreateContext");
  return pc;
}

// Reads the fuzzer's input front to back; past the end everything is 0.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | byte();
    return v;
  }
  // Up to n bytes (fewer at the end).
  std::vector<uint8_t> bytes(size_t n) {
    size_t take = std::min(n, size_ - std::min(pos_, size_));
    std::vector<uint8_t> out(data_ + pos_, data_ + pos_ + take);
    pos_ += take;
    return out;
  }
  std::string rest() {
    std::string s(reinterpret_cast<const char*>(data_ + std::min(pos_, size_)),
                  size_ - std::min(pos_, size_));
    pos_ = size_;
    return s;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace parasol_fuzz
