// A program's access ranges as bytes, for the on-disk cache
// (analyse_access_ranges keeps them beside the compiled kernels): a
// version, then every field in order, integers little-endian as the host
// has them. decode() checks every length and index against what it read, so
// a truncated or corrupt entry is refused (then analysed again), never
// trusted.
#include "Internal.h"
#include "parasol/kernels/access_ranges.h"

#include <cstring>

namespace parasol::kernels::detail {
namespace {

constexpr std::uint32_t kVersion = 1;

class Writer {
 public:
  template <typename T>
  void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const unsigned char*>(&v);
    out.insert(out.end(), p, p + sizeof v);
  }
  void text(const std::string& s) {
    put<std::uint64_t>(s.size());
    out.insert(out.end(), s.begin(), s.end());
  }
  void form(std::uint32_t c0, const std::vector<std::pair<RangeVar, std::uint32_t>>& terms) {
    put(c0);
    put<std::uint64_t>(terms.size());
    for (const auto& [var, coef] : terms) {
      put(static_cast<std::uint8_t>(var.kind));
      put(var.index);
      put(coef);
    }
  }
  void access(const ArgAccess& a) {
    put(static_cast<std::uint8_t>(a.kind));
    put<std::uint64_t>(a.sites.size());
    for (const AccessSite& s : a.sites) {
      form(s.c0, s.terms);
      put(s.bytes);
    }
    text(a.whole_reason);
  }
  std::vector<unsigned char> out;
};

class Reader {
 public:
  Reader(const unsigned char* data, std::size_t size) : p_(data), end_(data + size) {}
  template <typename T>
  bool get(T& v) {
    if (static_cast<std::size_t>(end_ - p_) < sizeof v) return false;
    std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
    return true;
  }
  // A count of items at least `each` bytes long that the rest can hold.
  bool count(std::size_t& n, std::size_t each) {
    std::uint64_t v = 0;
    if (!get(v) || v > static_cast<std::uint64_t>(end_ - p_) / each) return false;
    n = static_cast<std::size_t>(v);
    return true;
  }
  bool text(std::string& s) {
    std::size_t n = 0;
    if (!count(n, 1)) return false;
    s.assign(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return true;
  }
  bool done() const { return p_ == end_; }

 private:
  const unsigned char* p_;
  const unsigned char* end_;
};

}  // namespace

std::vector<unsigned char> encode(const std::vector<KernelAccessRanges>& kernels) {
  Writer w;
  w.put(kVersion);
  w.put<std::uint64_t>(kernels.size());
  for (const KernelAccessRanges& k : kernels) {
    w.text(k.kernel);
    w.put<std::uint64_t>(k.nodes.size());
    for (const RangeNode& n : k.nodes) {
      w.put(static_cast<std::uint8_t>(n.op));
      w.put(n.value);
      w.put(n.a);
      w.put(n.b);
      w.put(n.width);
      w.put(static_cast<std::uint8_t>(n.is_signed));
    }
    w.put<std::uint64_t>(k.loop_backedges.size());
    for (const auto& l : k.loop_backedges) w.form(l.c0, l.terms);
    w.put<std::uint64_t>(k.args.size());
    for (const ArgAccessRanges& a : k.args) {
      w.put(a.arg);
      w.text(a.name);
      w.access(a.reads);
      w.access(a.writes);
      w.put(static_cast<std::uint8_t>(a.atomics));
    }
    for (const SplitVerdict& v : k.split) {
      w.put(static_cast<std::uint8_t>(v.possible));
      w.text(v.reason);
      w.put<std::uint64_t>(v.distinct_buffers.size());
      for (const auto& [x, y] : v.distinct_buffers) {
        w.put(x);
        w.put(y);
      }
    }
    w.put(k.launch_bound_dims);
  }
  return std::move(w.out);
}

bool decode(const unsigned char* data, std::size_t size, std::vector<KernelAccessRanges>& out) {
  Reader r(data, size);
  std::uint32_t version = 0;
  std::size_t nk = 0;
  if (!r.get(version) || version != kVersion || !r.count(nk, 8)) return false;
  out.assign(nk, {});
  for (KernelAccessRanges& k : out) {
    std::size_t nn = 0;
    if (!r.text(k.kernel) || !r.count(nn, 1)) return false;
    k.nodes.resize(nn);
    for (std::size_t i = 0; i < nn; ++i) {
      RangeNode& n = k.nodes[i];
      std::uint8_t op = 0, sign = 0;
      if (!r.get(op) || !r.get(n.value) || !r.get(n.a) || !r.get(n.b) || !r.get(n.width) ||
          !r.get(sign) || op > static_cast<std::uint8_t>(RangeNode::Op::LShr))
        return false;
      n.op = static_cast<RangeNode::Op>(op);
      n.is_signed = sign != 0;
    }
    // A form's nodes must exist, its loop counters too (checked below, once
    // the loops are read).
    auto form = [&](std::uint32_t& c0, std::vector<std::pair<RangeVar, std::uint32_t>>& terms) {
      std::size_t nt = 0;
      if (!r.get(c0) || c0 >= nn || !r.count(nt, 9)) return false;
      terms.resize(nt);
      for (auto& [var, coef] : terms) {
        std::uint8_t kind = 0;
        if (!r.get(kind) || !r.get(var.index) || !r.get(coef) || coef >= nn ||
            kind > static_cast<std::uint8_t>(RangeVar::Kind::LoopTrip))
          return false;
        var.kind = static_cast<RangeVar::Kind>(kind);
        if (var.kind != RangeVar::Kind::LoopTrip && var.index > 2) return false;
      }
      return true;
    };
    auto access = [&](ArgAccess& a) {
      std::uint8_t kind = 0;
      std::size_t ns = 0;
      if (!r.get(kind) || kind > static_cast<std::uint8_t>(ArgAccess::Kind::Whole) || !r.count(ns, 12))
        return false;
      a.kind = static_cast<ArgAccess::Kind>(kind);
      a.sites.resize(ns);
      for (AccessSite& s : a.sites)
        if (!form(s.c0, s.terms) || !r.get(s.bytes)) return false;
      return r.text(a.whole_reason);
    };
    std::size_t nl = 0, na = 0;
    if (!r.count(nl, 12)) return false;
    k.loop_backedges.resize(nl);
    for (auto& l : k.loop_backedges)
      if (!form(l.c0, l.terms)) return false;
    if (!r.count(na, 4)) return false;
    k.args.resize(na);
    for (ArgAccessRanges& a : k.args) {
      std::uint8_t atomics = 0;
      if (!r.get(a.arg) || !r.text(a.name) || !access(a.reads) || !access(a.writes) ||
          !r.get(atomics))
        return false;
      a.atomics = atomics != 0;
    }
    for (SplitVerdict& v : k.split) {
      std::uint8_t possible = 0;
      std::size_t nd = 0;
      if (!r.get(possible) || !r.text(v.reason) || !r.count(nd, 8)) return false;
      v.possible = possible != 0;
      v.distinct_buffers.resize(nd);
      for (auto& [x, y] : v.distinct_buffers)
        if (!r.get(x) || !r.get(y)) return false;
    }
    if (!r.get(k.launch_bound_dims)) return false;
    // Every loop counter a form names is a loop of the kernel.
    auto loops_known = [&](const std::vector<std::pair<RangeVar, std::uint32_t>>& terms) {
      for (const auto& t : terms)
        if (t.first.kind == RangeVar::Kind::LoopTrip && t.first.index >= nl) return false;
      return true;
    };
    for (const auto& l : k.loop_backedges)
      if (!loops_known(l.terms)) return false;
    for (const ArgAccessRanges& a : k.args)
      for (const ArgAccess* acc : {&a.reads, &a.writes})
        for (const AccessSite& s : acc->sites)
          if (!loops_known(s.terms)) return false;
  }
  return r.done();
}

}  // namespace parasol::kernels::detail
