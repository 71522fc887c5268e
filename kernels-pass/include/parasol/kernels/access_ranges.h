// Which bytes of each buffer argument a block of work-groups reads and
// writes: the access-range analysis that lets a launch be split across
// devices.
//
// For every kernel and every __global or __constant pointer argument, the
// analysis keeps, for reads and for writes, either nothing, the whole
// buffer, or a list of access sites. A site is one memory access whose byte
// offset from the argument is affine in the work-item's variables
//
//     offset = c0 + sum_v c_v * v      (accesses `bytes` bytes from offset)
//
// where v ranges over the group ids, the local ids and one trip counter per
// enclosing loop, and every coefficient c is an expression of the launch
// (local sizes, numbers of groups, global offsets, work_dim) and of the
// kernel's integer scalar arguments. Nothing here is evaluated before
// launch: evaluate() takes the launch's values and a block of groups
// [g0, g1) along one dimension and gives the hull [lo, hi) of the block's
// accesses, exact (the true lowest and highest byte) when each variable
// ranges over a box: group ids over the block (the split dimension) or all
// groups, local ids over the local size, loop counters over the loop's
// trip count (a rectangular loop nest). A loop whose count depends on the
// work-item or on an outer loop (triangular) counts up to its highest
// count: a hull, never smaller than the accesses.
//
// Like the rest of kernels-pass, LLVM types stay out of this header.
#pragma once

#include "parasol/kernels/compiler.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parasol::kernels {

// An expression of the launch, as a node of KernelAccessRanges::nodes
// (operands are earlier nodes, so the vector is a topological order).
struct RangeNode {
  enum class Op : std::uint8_t {
    Const,         // value
    LocalSize,     // of dimension `value`
    NumGroups,     // of dimension `value`
    GlobalOffset,  // of dimension `value`
    WorkDim,
    Arg,           // the integer scalar argument number `value`, `width` bits,
                   // sign-extended when `is_signed`
    // Of nodes a and b; divisions and remainders as C's (a zero divisor
    // gives 0), unsigned ones of values taken as non-negative.
    Add, Mul, SMax, SMin, UMax, UMin, UDiv, SDiv, SRem, URem, AShr, LShr,
  };
  Op op = Op::Const;
  std::int64_t value = 0;
  std::uint32_t a = 0, b = 0;
  std::uint8_t width = 64;
  bool is_signed = false;
};

// A variable of a work-item: what a site's offset is affine in.
struct RangeVar {
  enum class Kind : std::uint8_t { GroupId, LocalId, LoopTrip };
  Kind kind = Kind::GroupId;
  std::uint32_t index = 0;  // the dimension, or the loop (KernelAccessRanges::loop_backedges)
  bool operator==(const RangeVar&) const = default;
};

struct AccessSite {
  std::uint32_t c0 = 0;                                     // node
  std::vector<std::pair<RangeVar, std::uint32_t>> terms;    // variable, coefficient node
  std::uint64_t bytes = 0;                                  // accessed from the offset on
};

struct ArgAccess {
  enum class Kind : std::uint8_t { None, Sites, Whole };
  Kind kind = Kind::None;
  std::vector<AccessSite> sites;  // Kind::Sites
  std::string whole_reason;       // Kind::Whole: why it cannot be bounded
};

struct ArgAccessRanges {
  std::uint32_t arg = 0;  // the argument's index
  std::string name;
  ArgAccess reads, writes;
  bool atomics = false;   // an atomic operation goes through it
};

// Whether a launch may be split into blocks of groups along one dimension,
// as far as the kernel's code tells. `possible` still needs check_split()
// at launch: whether the blocks' writes are disjoint can depend on the
// launch and the scalar arguments (a row of `n` elements and a global size
// wider than n).
struct SplitVerdict {
  bool possible = false;
  std::string reason;  // why not, when !possible
  // Argument pairs that must be distinct buffers (both written: the
  // analysis proves each argument's blocks disjoint, not two of them).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> distinct_buffers;
};

struct KernelAccessRanges {
  std::string kernel;
  std::vector<RangeNode> nodes;
  // Loop number i's trip counter runs over [0, the highest value of its
  // backedge count], the count affine in the variables of the scopes around
  // the loop (a triangular loop: for (k = 0; k <= i; ++k)). A loop whose
  // count is negative is never entered.
  struct LoopBound {
    std::uint32_t c0 = 0;                                   // node
    std::vector<std::pair<RangeVar, std::uint32_t>> terms;  // variable, coefficient node
  };
  std::vector<LoopBound> loop_backedges;
  std::vector<ArgAccessRanges> args;  // the pointer arguments, in order
  SplitVerdict split[3];              // per dimension
  // The dimensions (bit d) along which the kernel, or a function it calls,
  // asks for its group id, number of groups, global size or global offset
  // (get_group_id ...; a dimension not known at compile time counts for
  // all three). Blocks launched as launches of their own answer those
  // differently: the runtime splits such a kernel along other dimensions.
  unsigned launch_bound_dims = 0;
};

struct AccessAnalysis {
  std::vector<KernelAccessRanges> kernels;
  bool ok = false;  // false: the program did not compile (log says why)
  std::string log;
};

// Runs Parasol's front end on the source (build options as build()) and
// analyses every kernel. Thread-safe; not cached.
AccessAnalysis analyse_access_ranges(std::string_view source, std::string_view options);

// The value of a launch: the geometry and each argument's bits (index =
// argument index; only integer scalar arguments are read, as their bytes
// zero-extended to 64 bits).
struct LaunchValues {
  NDRange range;
  std::vector<std::uint64_t> args;
};

// [lo, hi) in bytes from the argument's address; lo may be negative and hi
// past the buffer (a guarded halo or a rounded-up global size): the caller
// clamps to the buffer. whole: the whole buffer; lo == hi: nothing.
struct ByteRange {
  bool whole = false;
  std::int64_t lo = 0, hi = 0;
  bool empty() const { return !whole && lo >= hi; }
  bool operator==(const ByteRange&) const = default;
};

// The hull of the accesses of the groups [g0, g1) along `dim` (every group
// along the other dimensions).
ByteRange evaluate(const KernelAccessRanges& k, const ArgAccess& access, const LaunchValues& launch,
                   std::size_t g0, std::size_t g1, unsigned dim);

// At launch: whether every block of groups along `dim` writes bytes no other
// block writes, for any partition of the groups into blocks. Holds when,
// for each written argument, every write site advances by the same stride
// per group along `dim` and one group's writes (all sites) span no more
// than that stride. `reason` says which argument fails and why.
struct SplitCheck {
  bool ok = false;
  std::string reason;
};
SplitCheck check_split(const KernelAccessRanges& k, const LaunchValues& launch, unsigned dim);

// One line per argument and one per dimension, for people (the
// parasol-kernels-opt --access-ranges tool).
std::string describe_access_ranges(const KernelAccessRanges& k);

}  // namespace parasol::kernels
