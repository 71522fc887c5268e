// What Parasol's compiler tells of the bytes a kernel's blocks of
// work-groups read and write (kernels-pass's access-range analysis), in the
// runtime's terms: the facts that decide whether one launch may be split
// across devices and which bytes each device needs and gives back.
//
// The analysis runs the front end on a program's source: it is asked for on
// the first launch that could be split, never at build. Without Parasol's
// compiler (PARASOL_NATIVE_CPU=OFF) no program is analysed.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backend/native/native_compiler.h"

namespace parasol::backend::native {

struct ProgramRanges;  // a program's analysis (opaque outside native/)
struct KernelRanges;   // one kernel's, within its program's

// Analyses every kernel of the source, built with options; null with the
// reason in log when it cannot (no compiler, the source did not compile).
std::shared_ptr<const ProgramRanges> analyse_ranges(const std::string& source,
                                                    const std::string& options, std::string& log);
// The kernel's analysis, null if the program has no such kernel.
const KernelRanges* kernel_ranges(const ProgramRanges& program, const std::string& kernel);

// What the kernel's code allows, before any launch: the dimensions along
// which blocks of groups may run apart (bit d), why not along the others,
// and the written arguments that must be distinct buffers.
struct SplitAbility {
  unsigned dims = 0;
  std::string why_not[3];
  std::vector<std::pair<cl_uint, cl_uint>> distinct[3];
};
SplitAbility split_ability(const KernelRanges& k);

// A launch as the analysis reads it: the geometry (every local size given)
// and each argument's bytes as a zero-extended integer (scalars only).
struct RangeLaunch {
  Launch geometry;
  std::vector<std::uint64_t> args;
};

// Whether every block of groups along dim writes bytes no other block
// writes, with this launch's values; why not in why.
bool blocks_write_apart(const KernelRanges& k, const RangeLaunch& launch, unsigned dim,
                        std::string& why);

// The bytes from the argument's address that groups [g0, g1) along dim
// read or write: [lo, hi) (may stick out of the buffer: the caller clamps),
// or the whole buffer. An argument the analysis does not know is read and
// written whole.
struct BlockBytes {
  bool whole = false;
  std::int64_t lo = 0, hi = 0;
};
enum class Access { Read, Write };
BlockBytes block_bytes(const KernelRanges& k, cl_uint arg, Access access,
                       const RangeLaunch& launch, std::size_t g0, std::size_t g1, unsigned dim);
// Whether an atomic operation goes through argument arg.
bool has_atomics(const KernelRanges& k, cl_uint arg);

// The analysis in words, one line per argument and dimension (the log).
std::string describe(const KernelRanges& k);

}  // namespace parasol::backend::native
