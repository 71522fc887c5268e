// Lanes: the shape the work-group lowering gives a barrier-free kernel
// whose work-items leave its one loop at different iterations (each
// work-item's Collatz sequence, an escape-time fractal).
//
// Such a loop neither vectorises (LLVM vectorises innermost loops only, and
// the work-item loop holds it) nor runs well in rounds (WorkItemRounds.h:
// each round costs every work-item of a strip its slots' loads and stores).
// In lanes, the work-item loop steps over strips of W work-items of one row
// (local ids x .. x+W-1) and runs the kernel once per strip with every
// value a vector of W lanes, one work-item each, held in registers:
// - the code is linearised: every block runs, under the mask of the lanes
//   that reach it (a branch's edges carry its block's mask and its
//   condition, or its negation); a phi selects by its incoming edges' masks;
// - loads and stores are masked gathers and scatters; an integer division's
//   divisor is 1 in the lanes that do not reach it;
// - the loop runs while any lane is in it; a value used past the loop is
//   frozen in each lane at the iteration that lane leaves, and each exit
//   edge's mask gathers the lanes that took it.
// Masks are combined by selects (logical and/or), so that values of lanes
// that left, or never came, cannot reach a branch.
//
// Results are those of the work-items one after another, as for rounds: a
// work-item's own accesses keep their order, and between barriers no
// work-item may read what another writes; a scatter writes its lanes in
// order, as the work-items would.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>

#include <array>

namespace parasol::kernels {

// Whether the kernel (inlined, before the lowering, not in rounds) runs in
// lanes: no barrier, no alloca, no __local variable; exactly one loop
// (innermost, reducible CFG), left at a work-item's own iteration (an exit
// test reads a value that differs between work-items) and not short (more
// than 16 iterations or an unknown count); scalar values only (no vector
// or aggregate types); instructions of the kinds the lanes carry: integer,
// floating-point and pointer arithmetic, comparisons, selects, casts, phis,
// conditional branches, returns, plain loads and stores, the launch geometry
// (local ids in constant dimensions) and intrinsics that have vector forms.
bool runs_in_lanes(llvm::Function& kernel);

// The lanes per strip for the kernel on a target whose vector registers
// hold `vector_bits`: 1024 bits of its widest value where registers hold
// 256 bits or more (else two registers), 4 to 32 lanes.
unsigned lanes_width(llvm::Function& kernel, unsigned vector_bits);

// Emits the kernel over one strip at b's insertion point, in b's function:
// `local_id` are the lanes' local ids (x a vector of `width` lanes, y and z
// scalars), `in_strip` the lanes that are work-items of the group, `args`
// the kernel's arguments as the work-group function has them. Leaves b at
// the end of the block where every lane is done. Calls to the launch
// geometry other than the local id stay calls, for the lowering to resolve.
void emit_lanes(llvm::Function& kernel, unsigned width, llvm::IRBuilder<>& b,
                const std::array<llvm::Value*, 3>& local_id, llvm::Value* in_strip,
                llvm::ArrayRef<llvm::Value*> args);

}  // namespace parasol::kernels
