// Program binaries: a small header (who compiled it, for which CPU), the
// kernel descriptions, then the relocatable object ORC loads as is.
#include "Internal.h"

#include <cstring>

namespace parasol::kernels::detail {

namespace {

// One magic per ImageKind: executable, compiled object, library.
constexpr char kMagic[3][8] = {{'P', 'R', 'S', 'L', 'K', 'B', 'I', '1'},
                               {'P', 'R', 'S', 'L', 'K', 'B', 'O', '1'},
                               {'P', 'R', 'S', 'L', 'K', 'B', 'L', '1'}};

const char* magic_of(ImageKind kind) { return kMagic[static_cast<int>(kind)]; }

struct Writer {
  std::vector<unsigned char> out;
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
  }
  void str(std::string_view s) {
    u64(s.size());
    out.insert(out.end(), s.begin(), s.end());
  }
};

struct Reader {
  const unsigned char* p;
  const unsigned char* end;
  bool ok = true;
  std::uint64_t u64() {
    if (end - p < 8) { ok = false; return 0; }
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t(p[i]) << (8 * i);
    p += 8;
    return v;
  }
  std::string str() {
    std::uint64_t n = u64();
    if (!ok || std::uint64_t(end - p) < n) { ok = false; return {}; }
    std::string s(reinterpret_cast<const char*>(p), n);
    p += n;
    return s;
  }
};

}  // namespace

std::vector<unsigned char> serialise(const ProgramImage& img) {
  const HostTarget& h = host_target();
  Writer w;
  w.out.insert(w.out.end(), magic_of(img.kind), magic_of(img.kind) + 8);
  w.str(compiler_id());
  w.str(h.cpu);
  w.str(h.features);
  w.u64(img.kernels.size());
  for (const KernelInfo& k : img.kernels) {
    w.str(k.name);
    w.u64(k.args.size());
    for (const ArgInfo& a : k.args) {
      w.str(a.name);
      w.str(a.type_name);
      w.u64(static_cast<std::uint64_t>(a.kind));
      w.u64(a.address);
      w.u64(a.access);
      w.u64(a.type_qualifier);
      w.u64(a.size);
    }
    for (std::size_t d : k.reqd_work_group_size) w.u64(d);
    w.u64(k.static_local_bytes);
    w.u64(k.private_bytes);
    w.str(k.attributes);
  }
  w.u64(img.global_variable_bytes);
  w.str(std::string_view(reinterpret_cast<const char*>(img.object.data()), img.object.size()));
  return std::move(w.out);
}

bool deserialise(const unsigned char* data, std::size_t size, ProgramImage& img, std::string& log) {
  int kind = 0;
  while (kind < 3 && !(data && size >= 8 && std::memcmp(data, kMagic[kind], 8) == 0)) ++kind;
  if (kind == 3) {
    log += "error: not a Parasol native CPU binary\n";
    return false;
  }
  img.kind = static_cast<ImageKind>(kind);
  Reader r{data + 8, data + size};
  std::string id = r.str(), cpu = r.str(), features = r.str();
  const HostTarget& h = host_target();
  if (r.ok && id != compiler_id()) {
    log += "error: binary built by another compiler (" + id + "), this is " + std::string(compiler_id()) + "\n";
    return false;
  }
  if (r.ok && (cpu != h.cpu || features != h.features)) {
    log += "error: binary built for another CPU (" + cpu + "), this one is " + h.cpu + "\n";
    return false;
  }
  std::uint64_t n = r.u64();
  for (std::uint64_t i = 0; r.ok && i < n; ++i) {
    KernelInfo k;
    k.name = r.str();
    std::uint64_t na = r.u64();
    for (std::uint64_t j = 0; r.ok && j < na; ++j) {
      ArgInfo a;
      a.name = r.str();
      a.type_name = r.str();
      a.kind = static_cast<ArgKind>(r.u64());
      a.address = static_cast<cl_kernel_arg_address_qualifier>(r.u64());
      a.access = static_cast<cl_kernel_arg_access_qualifier>(r.u64());
      a.type_qualifier = static_cast<cl_kernel_arg_type_qualifier>(r.u64());
      a.size = r.u64();
      k.args.push_back(std::move(a));
    }
    for (std::size_t& d : k.reqd_work_group_size) d = r.u64();
    k.static_local_bytes = r.u64();
    k.private_bytes = r.u64();
    k.attributes = r.str();
    img.kernels.push_back(std::move(k));
  }
  img.global_variable_bytes = r.u64();
  std::string obj = r.str();
  if (!r.ok) {
    log += "error: truncated or corrupt binary\n";
    return false;
  }
  img.object.assign(obj.begin(), obj.end());
  return true;
}

}  // namespace parasol::kernels::detail
