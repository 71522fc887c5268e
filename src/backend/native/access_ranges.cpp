// The access-range analysis of kernels-pass, behind backend/native/access_ranges.h.
#include "backend/native/access_ranges.h"

#include <parasol/kernels/access_ranges.h>

#include <algorithm>

namespace parasol::backend::native {

struct KernelRanges {
  kernels::KernelAccessRanges k;
};

struct ProgramRanges {
  std::vector<KernelRanges> kernels;
};

std::shared_ptr<const ProgramRanges> analyse_ranges(const std::string& source,
                                                    const std::string& options, std::string& log) {
  kernels::AccessAnalysis analysis = kernels::analyse_access_ranges(source, options);
  if (!analysis.ok) {
    log = analysis.log.empty() ? "the source did not compile" : std::move(analysis.log);
    return nullptr;
  }
  auto p = std::make_shared<ProgramRanges>();
  for (kernels::KernelAccessRanges& k : analysis.kernels) p->kernels.push_back({std::move(k)});
  return p;
}

const KernelRanges* kernel_ranges(const ProgramRanges& program, const std::string& kernel) {
  for (const KernelRanges& k : program.kernels)
    if (k.k.kernel == kernel) return &k;
  return nullptr;
}

SplitAbility split_ability(const KernelRanges& k) {
  SplitAbility out;
  for (unsigned d = 0; d < 3; ++d) {
    const kernels::SplitVerdict& v = k.k.split[d];
    out.why_not[d] = v.reason;
    // A block runs as a launch of its own groups: its group ids, number of
    // groups, global size and offset along d are not the whole launch's.
    if (v.possible && (k.k.launch_bound_dims & (1u << d))) {
      out.why_not[d] = "it asks for its group id, number of groups, global size or global "
                       "offset along dimension " + std::to_string(d) +
                       ", which a block launched on its own answers differently";
      continue;
    }
    if (v.possible) out.dims |= 1u << d;
    for (const auto& [a, b] : v.distinct_buffers) out.distinct[d].emplace_back(a, b);
  }
  return out;
}

namespace {

kernels::LaunchValues values(const RangeLaunch& launch) {
  kernels::LaunchValues v;
  const Launch& g = launch.geometry;
  v.range.work_dim = g.work_dim;
  for (unsigned d = 0; d < 3; ++d) {
    v.range.global_offset[d] = g.offset[d];
    v.range.global_size[d] = g.global[d];
    v.range.local_size[d] = g.local[d] ? g.local[d] : 1;
    v.range.num_groups[d] = g.global[d] / v.range.local_size[d];
  }
  v.args = launch.args;
  return v;
}

const kernels::ArgAccessRanges* arg_of(const KernelRanges& k, cl_uint arg) {
  auto it = std::find_if(k.k.args.begin(), k.k.args.end(),
                         [arg](const kernels::ArgAccessRanges& a) { return a.arg == arg; });
  return it == k.k.args.end() ? nullptr : &*it;
}

}  // namespace

bool blocks_write_apart(const KernelRanges& k, const RangeLaunch& launch, unsigned dim,
                        std::string& why) {
  kernels::SplitCheck c = kernels::check_split(k.k, values(launch), dim);
  why = std::move(c.reason);
  return c.ok;
}

BlockBytes block_bytes(const KernelRanges& k, cl_uint arg, Access access,
                       const RangeLaunch& launch, std::size_t g0, std::size_t g1, unsigned dim) {
  const kernels::ArgAccessRanges* a = arg_of(k, arg);
  if (!a) return {true, 0, 0};
  kernels::ByteRange r = kernels::evaluate(k.k, access == Access::Read ? a->reads : a->writes,
                                           values(launch), g0, g1, dim);
  return {r.whole, r.lo, r.hi};
}

bool has_atomics(const KernelRanges& k, cl_uint arg) {
  const kernels::ArgAccessRanges* a = arg_of(k, arg);
  return !a || a->atomics;
}

std::string describe(const KernelRanges& k) { return kernels::describe_access_ranges(k.k); }

}  // namespace parasol::backend::native
