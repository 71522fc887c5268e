// A tiny standalone executor: runs every work-group of an NDRange through a
// compiled work-group function, optionally spread over std::threads.
#pragma once

#include "parasol/kernels/compiler.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace test {

// OpenCL buffers are aligned at least to the largest vector type (128 bytes
// on CL_DEVICE_MEM_BASE_ADDR_ALIGN); vectors in tests must be too.
template <class T>
struct AlignedAlloc {
  using value_type = T;
  AlignedAlloc() = default;
  template <class U>
  AlignedAlloc(const AlignedAlloc<U>&) {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(128)));
  }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(128)); }
  bool operator==(const AlignedAlloc&) const { return true; }
};
template <class T>
using Buf = std::vector<T, AlignedAlloc<T>>;

using parasol::kernels::BuildResult;
using parasol::kernels::NDRange;

// Builds or fails the test with the log.
inline std::unique_ptr<parasol::kernels::CompiledProgram> build_ok(const std::string& src,
                                                                   const std::string& opts = "") {
  BuildResult r = parasol::kernels::build(src, opts);
  if (!r.program) throw std::runtime_error("build failed:\n" + r.log);
  return std::move(r.program);
}

// Kernel arguments as the WorkGroupFn expects: args[i] points at the value,
// or at a void* holding the pointer.
class Args {
 public:
  template <class T>
  Args& value(const T& v) {
    auto p = std::make_unique<unsigned char[]>(sizeof(T));
    std::memcpy(p.get(), &v, sizeof(T));
    storage_.push_back(std::move(p));
    return *this;
  }
  Args& ptr(const void* p) { return value(p); }
  // __local T* argument: `bytes` of scratch per work-group.
  Args& local(std::size_t bytes) {
    local_sizes_.push_back({storage_.size(), bytes});
    return value<void*>(nullptr);
  }
  std::vector<void*> pointers() const {
    std::vector<void*> v;
    for (auto& s : storage_) v.push_back(s.get());
    return v;
  }
  const std::vector<std::pair<std::size_t, std::size_t>>& locals() const { return local_sizes_; }

 private:
  std::vector<std::unique_ptr<unsigned char[]>> storage_;
  std::vector<std::pair<std::size_t, std::size_t>> local_sizes_;
};

inline NDRange range(unsigned dim, std::array<std::size_t, 3> global, std::array<std::size_t, 3> local) {
  NDRange r;
  r.work_dim = dim;
  for (unsigned d = 0; d < 3; ++d) {
    r.global_size[d] = d < dim ? global[d] : 1;
    r.local_size[d] = d < dim ? local[d] : 1;
    r.num_groups[d] = r.global_size[d] / r.local_size[d];
  }
  return r;
}

inline void run(const parasol::kernels::CompiledProgram& p, const std::string& kernel, const Args& args,
                const NDRange& r, unsigned threads = 1) {
  auto fn = p.entry(kernel);
  if (!fn) throw std::runtime_error("no kernel " + kernel);
  std::size_t static_local = 0;
  for (auto& k : p.kernels())
    if (k.name == kernel) static_local = k.static_local_bytes;
  std::size_t groups = r.num_groups[0] * r.num_groups[1] * r.num_groups[2];
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    // Per-thread scratch: static __local variables and __local arguments.
    std::vector<unsigned char> local_mem(static_local + 64);
    std::vector<std::vector<unsigned char>> local_args;
    std::vector<void*> ptrs = args.pointers();
    std::vector<void*> local_ptrs(ptrs.size());
    for (auto [idx, bytes] : args.locals()) {
      local_args.emplace_back(bytes + 64);
      local_ptrs[idx] = local_args.back().data();
      ptrs[idx] = &local_ptrs[idx];
    }
    for (std::size_t g; (g = next++) < groups;) {
      std::size_t id[3] = {g % r.num_groups[0], (g / r.num_groups[0]) % r.num_groups[1],
                           g / (r.num_groups[0] * r.num_groups[1])};
      fn(ptrs.data(), &r, id, local_mem.data());
    }
  };
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < threads; ++t) ts.emplace_back(worker);
    for (auto& t : ts) t.join();
  }
}

}  // namespace test
