// Rounds: the shape the work-group lowering gives a barrier-free kernel
// whose work-item loop would hold a loop of its own.
//
// LLVM vectorises innermost loops only, so a work-item loop around an inner
// loop (nbody's loop over the bodies) stays scalar. In rounds, the inner
// loop L is cut at every edge into its header and into its exit block: the
// work-group function runs the code before L for every work-item, then one
// iteration of L for every work-item in it, round after round while any is,
// then the code after L. Each of these is an innermost work-item loop that
// the vectoriser takes, masked by each work-item's own state (those that
// returned before L, or never entered it, sit the rounds out). Values L
// carries from one iteration to the next live in per-work-item slots;
// values that are the same in every work-item at a round (the counter over
// the bodies, the body it loads) are kept once per round.
//
// Only loops that every work-item leaves at the same round run in rounds:
// with work-items leaving apart (each work-item's Collatz sequence), a
// round still costs every work-item of the strip its slots' loads and
// stores, and was measured slower than the scalar loop; that case runs in
// lanes (WorkItemLanes.h), its values in vector registers.
#pragma once

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>

#include <optional>
#include <vector>

namespace parasol::kernels {

struct RoundsPlan {
  llvm::BasicBlock* head_cut = nullptr;  // every edge into L's header goes through it
  llvm::BasicBlock* exit_cut = nullptr;  // every edge into L's exit block goes through it
  // A header phi whose value is the same in every work-item still in L at
  // one round (the inner loop's counter over a uniform range): its uses in L
  // call `placeholder` instead, and the lowering keeps it once per round,
  // outside the work-item loop, as init (at round 0) and next (round k+1 from
  // round k, `placeholder` standing for round k's value).
  struct Uniform {
    llvm::Function* placeholder;
    llvm::Value* init;
    llvm::Value* next;
  };
  std::vector<Uniform> uniforms;
  // A load in L from a uniform address, reached from the header through
  // branches on uniform conditions (`conditions`: the value each must have)
  // and nothing that may write memory: the work-items still in L at one
  // round read the same value, so the lowering loads it once per round,
  // before the work-item loop, when the conditions hold. Its uses call
  // `placeholder`; `load` is a detached copy (type and metadata) to clone.
  struct Load {
    llvm::Function* placeholder;
    llvm::Instruction* load;
    llvm::Value* address;
    std::vector<std::pair<llvm::Value*, bool>> conditions;
  };
  std::vector<Load> loads;

  RoundsPlan() = default;
  RoundsPlan(RoundsPlan&&) = default;
  RoundsPlan& operator=(RoundsPlan&&) = default;
  ~RoundsPlan();
};

// Prefix of the uniform placeholders' names.
inline constexpr const char* kRoundValuePrefix = "__parasol_round_value";

// When the kernel (barrier-free, inlined, before the lowering) qualifies,
// rewrites it for rounds and returns the plan: L's header and exit block
// lose their phis (uniform ones to placeholders, the rest to allocas, which
// the lowering makes per work-item) and each gets one cut block before it.
// Qualifies: no barrier, no atomic or volatile access, no fence, no call
// that may touch memory but intrinsics; L is a top-level innermost loop with
// one exit block, more than a few iterations, and exits decided on
// round-uniform values only. Otherwise leaves the kernel untouched.
std::optional<RoundsPlan> plan_rounds(llvm::Function& kernel);

// Whether plan_rounds would take the kernel (and leaves it untouched).
bool runs_in_rounds(llvm::Function& kernel);

// The analyses a kernel's loops are chosen with (rounds and lanes), built
// for the kernel as it is.
struct KernelLoopAnalyses {
  explicit KernelLoopAnalyses(llvm::Function& k)
      : dt(k), li(dt), tlii(llvm::Triple(k.getParent()->getTargetTriple())), tli(tlii, &k),
        ac(k), se(k, tli, ac, dt, li) {}
  llvm::DominatorTree dt;
  llvm::LoopInfo li;
  llvm::TargetLibraryInfoImpl tlii;
  llvm::TargetLibraryInfo tli;
  llvm::AssumptionCache ac;
  llvm::ScalarEvolution se;
};

// Whether every work-item in the loop leaves it at the same round: every
// branch out of it decides on round-uniform values (uniform header phis
// included).
bool leaves_uniformly(llvm::Loop& loop);

// Whether v is the same in all work-items that run in one round: built from
// constants, kernel arguments, the launch geometry other than the local id,
// and `uniform` values, by arithmetic that cannot trap.
bool is_round_uniform(llvm::Value* v, const llvm::SmallPtrSetImpl<llvm::Value*>& uniform,
                      unsigned depth = 0);

}  // namespace parasol::kernels
