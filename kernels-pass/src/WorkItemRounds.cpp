// Rounds (WorkItemRounds.h): which kernels qualify, and the rewrite of the
// kernel that the lowering then cuts like barriers.
//
// Why the results are those of one work-item after another: a work-item's
// own accesses keep their order (it runs its code in the same order, only
// interleaved with other work-items'), and between barriers no work-item
// may read what another writes (a data race in OpenCL). Atomics, fences,
// volatile accesses and calls that may touch memory (printf) are where an
// interleaving shows, so a kernel holding one keeps the plain lowering.
#include "WorkItemRounds.h"

#include "WorkGroupLowering.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/Local.h>

#include <string>

using namespace llvm;

namespace parasol::kernels {

namespace {

// A loop that runs at most this many times is left to LLVM: fully unrolled,
// the work-item loop around it is innermost and vectorised already.
constexpr unsigned kSmallTripCount = 16;

bool is_uniform_geometry(const CallInst* c) {
  const Function* f = c->getCalledFunction();
  if (!f) return false;
  StringRef n = f->getName();
  return n == kLocalSizeFn || n == kGroupIdFn || n == kNumGroupsFn || n == kGlobalOffsetFn ||
         n == kWorkDimFn || n.starts_with(kRoundValuePrefix);
}

bool is_placeholder(const Function* f) {
  StringRef n = f->getName();
  return n == kLocalIdFn || n == kLocalSizeFn || n == kGroupIdFn || n == kNumGroupsFn ||
         n == kGlobalOffsetFn || n == kWorkDimFn;
}

// Nothing a work-item does here may be seen by another in between barriers.
bool interleaving_safe(Function& k) {
  for (Instruction& i : instructions(k)) {
    if (isa<AtomicRMWInst>(i) || isa<AtomicCmpXchgInst>(i) || isa<FenceInst>(i)) return false;
    if (auto* l = dyn_cast<LoadInst>(&i); l && !l->isSimple()) return false;
    if (auto* s = dyn_cast<StoreInst>(&i); s && !s->isSimple()) return false;
    if (auto* a = dyn_cast<AllocaInst>(&i); a && a->getParent() != &k.getEntryBlock()) return false;
    auto* call = dyn_cast<CallBase>(&i);
    if (!call) continue;
    const Function* f = call->getCalledFunction();
    if (!f) return false;
    if (is_placeholder(f) || f->doesNotAccessMemory()) continue;
    if (f->isIntrinsic() && !isa<MemIntrinsic>(call) && f->onlyAccessesArgMemory()) continue;
    if (isa<MemIntrinsic>(call) && !cast<MemIntrinsic>(call)->isVolatile()) continue;
    if (isa<DbgInfoIntrinsic>(call) || isa<AssumeInst>(call)) continue;
    return false;
  }
  return true;
}

// The header phis that are uniform across rounds: their value on entry is
// uniform and each round's next value is computed from uniform values only.
// Since every work-item enters L in the same round and each active one runs
// one iteration per round, such a phi holds one value per round.
std::vector<PHINode*> uniform_phis(Loop& l) {
  BasicBlock* h = l.getHeader();
  SmallPtrSet<Value*, 8> cand;
  for (PHINode& phi : h->phis()) {
    bool used_outside = false;
    for (User* u : phi.users())
      used_outside |= !l.contains(cast<Instruction>(u)->getParent());
    if (!used_outside) cand.insert(&phi);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (PHINode& phi : h->phis()) {
      if (!cand.count(&phi)) continue;
      Value* init = nullptr;
      Value* next = nullptr;
      bool ok = true;
      for (unsigned k = 0; k < phi.getNumIncomingValues() && ok; ++k) {
        Value* v = phi.getIncomingValue(k);
        Value*& slot = l.contains(phi.getIncomingBlock(k)) ? next : init;
        if (slot && slot != v) ok = false;
        slot = v;
      }
      SmallPtrSet<Value*, 1> none;
      ok = ok && init && next && is_round_uniform(init, none) && is_round_uniform(next, cand);
      if (!ok) {
        cand.erase(&phi);
        changed = true;
      }
    }
  }
  std::vector<PHINode*> out;
  for (PHINode& phi : h->phis())
    if (cand.count(&phi)) out.push_back(&phi);
  return out;
}

}  // namespace

bool leaves_uniformly(Loop& l) {
  SmallPtrSet<Value*, 8> uniform;
  for (PHINode* phi : uniform_phis(l)) uniform.insert(phi);
  SmallVector<BasicBlock*, 4> exiting;
  l.getExitingBlocks(exiting);
  for (BasicBlock* bb : exiting) {
    auto* br = dyn_cast<BranchInst>(bb->getTerminator());
    if (!br || !br->isConditional() || !is_round_uniform(br->getCondition(), uniform)) return false;
  }
  return true;
}

namespace {

// One block that takes every edge into `to` (which has no phis left).
BasicBlock* cut_before(BasicBlock* to, const char* name) {
  std::vector<BasicBlock*> preds(pred_begin(to), pred_end(to));
  BasicBlock* cut = BasicBlock::Create(to->getContext(), name, to->getParent(), to);
  BranchInst::Create(to, cut);
  for (BasicBlock* p : preds) p->getTerminator()->replaceSuccessorWith(to, cut);
  return cut;
}

}  // namespace

bool is_round_uniform(Value* v, const SmallPtrSetImpl<Value*>& uniform, unsigned depth) {
  if (uniform.count(v)) return true;
  if (isa<Constant>(v) || isa<Argument>(v)) return true;
  auto* i = dyn_cast<Instruction>(v);
  if (!i || depth > 8) return false;
  if (auto* c = dyn_cast<CallInst>(i)) {
    if (!is_uniform_geometry(c)) return false;
    for (Value* op : c->args())
      if (!is_round_uniform(op, uniform, depth + 1)) return false;
    return true;
  }
  if (auto* bo = dyn_cast<BinaryOperator>(i)) {
    if (bo->isIntDivRem()) return false;  // may trap where the loop would not divide
  } else if (!isa<CastInst>(i) && !isa<CmpInst>(i) && !isa<SelectInst>(i) &&
             !isa<GetElementPtrInst>(i) && !isa<UnaryOperator>(i)) {
    return false;
  }
  for (Value* op : i->operands())
    if (!is_round_uniform(op, uniform, depth + 1)) return false;
  return true;
}

namespace {

// L of the kernel, or none: the analyses it is found with, alive while used.
struct LoopChoice : KernelLoopAnalyses {
  explicit LoopChoice(Function& k) : KernelLoopAnalyses(k) {
    if (has_barrier(k) || !interleaving_safe(k)) return;
    for (Loop* l : li.getTopLevelLoops()) {
      if (!l->isInnermost() || !l->getUniqueExitBlock() || !l->getLoopLatch()) continue;
      unsigned max_trips = se.getSmallConstantMaxTripCount(l);
      if (max_trips != 0 && max_trips <= kSmallTripCount) continue;
      if (!leaves_uniformly(*l)) continue;
      // Of loops in sequence, the first; the others stay scalar inside the regions.
      if (!chosen || dt.dominates(l->getHeader(), chosen->getHeader())) chosen = l;
    }
  }
  static bool has_barrier(Function& k) {
    for (Instruction& i : instructions(k))
      if (auto* c = dyn_cast<CallInst>(&i))
        if (c->getCalledFunction() && c->getCalledFunction()->getName() == kBarrierFn) return true;
    return false;
  }
  Loop* chosen = nullptr;
};

}  // namespace

RoundsPlan::~RoundsPlan() {
  for (Load& l : loads) l.load->deleteValue();
}

bool runs_in_rounds(Function& k) { return LoopChoice(k).chosen != nullptr; }

std::optional<RoundsPlan> plan_rounds(Function& k) {
  LoopChoice choice(k);
  Loop* chosen = choice.chosen;
  if (!chosen) return std::nullopt;
  Loop& l = *chosen;
  BasicBlock* header = l.getHeader();
  BasicBlock* exit = l.getUniqueExitBlock();

  RoundsPlan plan;
  Module& m = *k.getParent();
  DenseMap<Value*, Value*> replaced;  // uniform phi -> its placeholder call
  for (PHINode* phi : uniform_phis(l)) {
    std::string name = kRoundValuePrefix;
    name += "." + std::to_string(plan.uniforms.size());
    name += "." + k.getName().str();
    Function* f = Function::Create(FunctionType::get(phi->getType(), false),
                                   GlobalValue::ExternalLinkage, name, m);
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    RoundsPlan::Uniform u{f, nullptr, nullptr};
    for (unsigned i = 0; i < phi->getNumIncomingValues(); ++i)
      (l.contains(phi->getIncomingBlock(i)) ? u.next : u.init) = phi->getIncomingValue(i);
    auto* call = CallInst::Create(f, {}, phi->getName() + ".round");
    call->insertBefore(header->getFirstNonPHI());
    phi->replaceAllUsesWith(call);
    replaced[phi] = call;
    plan.uniforms.push_back(u);
  }
  for (RoundsPlan::Uniform& u : plan.uniforms)
    if (auto it = replaced.find(u.next); it != replaced.end()) u.next = it->second;
  for (auto& [phi, call] : replaced) cast<PHINode>(phi)->eraseFromParent();
  // Uniform loads: found before any is replaced, so that none's address or
  // conditions read another's value.
  std::vector<RoundsPlan::Load> loads;
  for (BasicBlock* bb : l.blocks()) {
    std::vector<std::pair<Value*, bool>> conditions;
    bool ok = true;
    for (BasicBlock* cur = bb; cur != header && ok;) {
      BasicBlock* pred = cur->getSinglePredecessor();
      auto* br = pred ? dyn_cast<BranchInst>(pred->getTerminator()) : nullptr;
      ok = br && std::none_of(pred->begin(), pred->end(),
                              [](Instruction& i) { return i.mayWriteToMemory(); });
      if (ok && br->isConditional() && br->getSuccessor(0) != br->getSuccessor(1)) {
        SmallPtrSet<Value*, 1> none;
        ok = is_round_uniform(br->getCondition(), none);
        conditions.emplace_back(br->getCondition(), br->getSuccessor(0) == cur);
      }
      cur = pred;
    }
    if (!ok) continue;
    for (Instruction& i : *bb) {
      if (i.mayWriteToMemory()) break;
      auto* load = dyn_cast<LoadInst>(&i);
      SmallPtrSet<Value*, 1> none;
      if (load && load->isSimple() && is_round_uniform(load->getPointerOperand(), none))
        loads.push_back({nullptr, load, nullptr, conditions});
    }
  }
  for (RoundsPlan::Load& u : loads) {
    std::string name = kRoundValuePrefix;
    name += ".load" + std::to_string(plan.loads.size());
    name += "." + k.getName().str();
    Function* f = Function::Create(FunctionType::get(u.load->getType(), false),
                                   GlobalValue::ExternalLinkage, name, m);
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    auto* call = CallInst::Create(f, {}, u.load->getName() + ".round");
    call->insertBefore(u.load);
    u.load->replaceAllUsesWith(call);
    // The copy keeps the load's type and metadata; its address stays in
    // the kernel (a copy that used it would count as one of its users).
    Instruction* copy = u.load->clone();
    copy->setOperand(0, PoisonValue::get(u.load->getOperand(0)->getType()));
    Value* address = u.load->getOperand(0);
    u.load->eraseFromParent();
    plan.loads.push_back({f, copy, address, std::move(u.conditions)});
  }
  // The other phis of the header and the exit block live in memory, so the
  // blocks start a region each (the lowering makes the allocas per work-item).
  std::vector<PHINode*> demote;
  for (BasicBlock* bb : {header, exit})
    for (PHINode& phi : bb->phis()) demote.push_back(&phi);
  // When the latch does not leave L, no path from the header out of L
  // stores into a header phi's slot: past L, its value is read from the slot
  // again where it is used (else the lowering would keep a second slot for
  // the header's load, copied every round).
  const bool latch_exits = l.isLoopExiting(l.getLoopLatch());
  for (PHINode* phi : demote) {
    const bool in_header = phi->getParent() == header;
    AllocaInst* slot = DemotePHIToStack(phi, k.getEntryBlock().begin());
    if (!in_header || latch_exits) continue;
    for (User* user : make_early_inc_range(slot->users())) {
      auto* value = dyn_cast<LoadInst>(user);
      if (!value || value->getParent() != header) continue;
      for (Use& use : make_early_inc_range(value->uses())) {
        auto* at = cast<Instruction>(use.getUser());
        if (auto* p = dyn_cast<PHINode>(at)) at = p->getIncomingBlock(use)->getTerminator();
        if (l.contains(at->getParent())) continue;
        use.set(new LoadInst(value->getType(), slot, value->getName() + ".past", at));
      }
    }
  }
  plan.head_cut = cut_before(header, "round.head");
  plan.exit_cut = cut_before(exit, "round.exit");
  return plan;
}

}  // namespace parasol::kernels
