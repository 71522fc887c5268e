// Lanes (WorkItemLanes.h): which kernels qualify, and the vector code of one
// strip of work-items.
#include "WorkItemLanes.h"

#include "WorkGroupLowering.h"
#include "WorkItemRounds.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

using namespace llvm;

namespace parasol::kernels {

namespace {

// Loops of at most this many iterations are left to LLVM (WorkItemRounds.cpp:
// unrolled whole, the work-item loop around them vectorises).
constexpr unsigned kSmallTripCount = 16;
constexpr unsigned kLocalAS = 3;

bool scalar_type(Type* t) { return t->isIntegerTy() || t->isFloatingPointTy() || t->isPointerTy(); }

bool is_geometry(const Function* f) {
  StringRef n = f->getName();
  return n == kLocalIdFn || n == kLocalSizeFn || n == kGroupIdFn || n == kNumGroupsFn ||
         n == kGlobalOffsetFn || n == kWorkDimFn;
}

bool skipped_intrinsic(const Instruction& i) {
  return isa<DbgInfoIntrinsic>(i) || isa<AssumeInst>(i);
}

// Whether the lanes carry the instruction (WorkItemLanes.h's list).
bool carried(Instruction& i) {
  if (skipped_intrinsic(i)) return true;
  if (!i.getType()->isVoidTy() && !scalar_type(i.getType())) return false;
  for (Value* op : i.operands()) {
    if (isa<BasicBlock>(op) || isa<Function>(op) || isa<MetadataAsValue>(op)) continue;
    if (!scalar_type(op->getType())) return false;
    if (auto* gv = dyn_cast<GlobalVariable>(op->stripPointerCasts()); gv && gv->getAddressSpace() == kLocalAS)
      return false;
  }
  if (isa<BinaryOperator>(i) || isa<UnaryOperator>(i) || isa<CastInst>(i) || isa<CmpInst>(i) ||
      isa<SelectInst>(i) || isa<PHINode>(i) || isa<FreezeInst>(i) || isa<ReturnInst>(i))
    return true;
  if (auto* g = dyn_cast<GetElementPtrInst>(&i)) return !g->getSourceElementType()->isScalableTy();
  if (isa<BranchInst>(i)) return true;
  if (auto* l = dyn_cast<LoadInst>(&i)) return l->isSimple();
  if (auto* s = dyn_cast<StoreInst>(&i)) return s->isSimple();
  if (auto* c = dyn_cast<CallInst>(&i)) {
    Function* f = c->getCalledFunction();
    if (!f) return false;
    if (is_geometry(f)) {
      for (Value* a : c->args())
        if (!isa<ConstantInt>(a)) return false;
      return true;
    }
    Intrinsic::ID id = f->getIntrinsicID();
    if (id == Intrinsic::not_intrinsic || !isTriviallyVectorizable(id)) return false;
    for (unsigned a = 0; a < c->arg_size(); ++a)
      if (isVectorIntrinsicWithScalarOpAtArg(id, a) && !isa<Constant>(c->getArgOperand(a))) return false;
    return true;
  }
  return false;
}

// The reverse post-order of the kernel's blocks, where every edge goes
// forward but the loop's back edges (false: an irreducible cycle).
bool forward_order(Function& k, Loop& l, std::vector<BasicBlock*>& order) {
  ReversePostOrderTraversal<Function*> rpo(&k);
  DenseMap<BasicBlock*, unsigned> at;
  for (BasicBlock* bb : rpo) {
    at[bb] = order.size();
    order.push_back(bb);
  }
  for (BasicBlock* bb : order)
    for (BasicBlock* s : successors(bb)) {
      auto it = at.find(s);
      if (it == at.end()) return false;
      if (it->second <= at[bb] && !(s == l.getHeader() && l.contains(bb))) return false;
    }
  return true;
}

// The kernel's one loop when it runs in lanes, else none.
Loop* lanes_loop(Function& k, KernelLoopAnalyses& a) {
  if (a.li.getTopLevelLoops().size() != 1) return nullptr;
  Loop* l = a.li.getTopLevelLoops()[0];
  if (!l->isInnermost()) return nullptr;
  for (Instruction& i : instructions(k))
    if (!carried(i)) return nullptr;
  std::vector<BasicBlock*> order;
  if (!forward_order(k, *l, order)) return nullptr;
  unsigned max_trips = a.se.getSmallConstantMaxTripCount(l);
  if (max_trips != 0 && max_trips <= kSmallTripCount) return nullptr;
  if (leaves_uniformly(*l)) return nullptr;  // rounds' (or LLVM's) case
  return l;
}

using Edge = std::pair<BasicBlock*, BasicBlock*>;

class Lanes {
 public:
  Lanes(Function& k, unsigned width, IRBuilder<>& b, const std::array<Value*, 3>& local_id,
        ArrayRef<Value*> args)
      : k_(k), w_(width), b_(b), lid_(local_id), args_(args) {}
  void emit(Value* in_strip);

 private:
  Value* get(Value* v);
  VectorType* vec_type(Type* t) { return FixedVectorType::get(t, w_); }
  Value* none() { return ConstantInt::getFalse(vec_type(b_.getInt1Ty())); }
  Value* logical_or(Value* a, Value* c) { return a ? b_.CreateLogicalOr(a, c) : c; }
  Value* edge_mask(BasicBlock* from, BasicBlock* to);
  void block(BasicBlock* bb, bool loop_header);
  void instruction(Instruction& i, Value* mask);
  void loop(Loop& l, const std::vector<BasicBlock*>& order);
  Value* select_incoming(PHINode& phi, ArrayRef<unsigned> incoming);

  Function& k_;
  unsigned w_;
  IRBuilder<>& b_;
  std::array<Value*, 3> lid_;
  ArrayRef<Value*> args_;
  DenseMap<Value*, Value*> vec_;        // kernel value -> its lanes' vector
  DenseMap<BasicBlock*, Value*> mask_;  // block -> the lanes that reach it
  std::map<Edge, Value*> edge_;         // branch edge -> the lanes that take it
};

Value* Lanes::get(Value* v) {
  if (auto it = vec_.find(v); it != vec_.end()) return it->second;
  Value* s = v;
  if (auto* a = dyn_cast<Argument>(v)) s = args_[a->getArgNo()];
  Value* r = b_.CreateVectorSplat(w_, s);
  if (!isa<Constant>(r)) vec_[v] = r;
  return r;
}

Value* Lanes::edge_mask(BasicBlock* from, BasicBlock* to) {
  auto it = edge_.find({from, to});
  return it == edge_.end() ? nullptr : it->second;
}

// A phi's value: each incoming value in the lanes its edge carries.
Value* Lanes::select_incoming(PHINode& phi, ArrayRef<unsigned> incoming) {
  Value* r = nullptr;
  for (unsigned k : incoming) {
    Value* v = get(phi.getIncomingValue(k));
    Value* m = edge_mask(phi.getIncomingBlock(k), phi.getParent());
    if (!m) continue;  // an edge no lane takes
    r = r ? b_.CreateSelect(m, v, r, phi.getName()) : v;
  }
  return r ? r : PoisonValue::get(vec_type(phi.getType()));
}

void Lanes::instruction(Instruction& i, Value* mask) {
  if (skipped_intrinsic(i) || isa<PHINode>(i) || i.isTerminator()) return;
  Value* r = nullptr;
  if (auto* bo = dyn_cast<BinaryOperator>(&i)) {
    Value* rhs = get(bo->getOperand(1));
    if (bo->isIntDivRem())  // lanes that do not divide divide by 1
      rhs = b_.CreateSelect(mask, rhs, ConstantInt::get(rhs->getType(), 1));
    r = b_.CreateBinOp(bo->getOpcode(), get(bo->getOperand(0)), rhs, i.getName());
  } else if (auto* uo = dyn_cast<UnaryOperator>(&i)) {
    r = b_.CreateUnOp(uo->getOpcode(), get(uo->getOperand(0)), i.getName());
  } else if (auto* c = dyn_cast<CastInst>(&i)) {
    r = b_.CreateCast(c->getOpcode(), get(c->getOperand(0)), vec_type(c->getDestTy()), i.getName());
  } else if (auto* c = dyn_cast<CmpInst>(&i)) {
    r = b_.CreateCmp(c->getPredicate(), get(c->getOperand(0)), get(c->getOperand(1)), i.getName());
  } else if (auto* s = dyn_cast<SelectInst>(&i)) {
    r = b_.CreateSelect(get(s->getCondition()), get(s->getTrueValue()), get(s->getFalseValue()), i.getName());
  } else if (auto* f = dyn_cast<FreezeInst>(&i)) {
    r = b_.CreateFreeze(get(f->getOperand(0)), i.getName());
  } else if (auto* g = dyn_cast<GetElementPtrInst>(&i)) {
    SmallVector<Value*, 4> idx;
    for (Value* v : g->indices()) idx.push_back(isa<Constant>(v) ? v : get(v));
    r = b_.CreateGEP(g->getSourceElementType(), get(g->getPointerOperand()), idx, i.getName(),
                     g->isInBounds());
  } else if (auto* l = dyn_cast<LoadInst>(&i)) {
    r = b_.CreateMaskedGather(vec_type(l->getType()), get(l->getPointerOperand()), l->getAlign(), mask,
                              nullptr, i.getName());
  } else if (auto* s = dyn_cast<StoreInst>(&i)) {
    b_.CreateMaskedScatter(get(s->getValueOperand()), get(s->getPointerOperand()), s->getAlign(), mask);
    return;
  } else if (auto* c = dyn_cast<CallInst>(&i)) {
    Function* f = c->getCalledFunction();
    if (f->getName() == kLocalIdFn) {
      uint64_t d = cast<ConstantInt>(c->getArgOperand(0))->getZExtValue();
      r = d == 0 ? lid_[0] : d < 3 ? b_.CreateVectorSplat(w_, lid_[d]) : get(b_.getInt64(0));
    } else if (is_geometry(f)) {  // uniform: one call, for the lowering to resolve
      SmallVector<Value*, 1> a(c->args());
      r = b_.CreateVectorSplat(w_, b_.CreateCall(f, a, i.getName()));
    } else {
      Intrinsic::ID id = f->getIntrinsicID();
      SmallVector<Type*, 2> types;
      SmallVector<Value*, 4> ops;
      if (isVectorIntrinsicWithOverloadTypeAtArg(id, -1)) types.push_back(vec_type(c->getType()));
      for (unsigned a = 0; a < c->arg_size(); ++a) {
        Value* op = c->getArgOperand(a);
        ops.push_back(isVectorIntrinsicWithScalarOpAtArg(id, a) ? op : get(op));
        if (isVectorIntrinsicWithOverloadTypeAtArg(id, a)) types.push_back(ops.back()->getType());
      }
      Function* vf = Intrinsic::getDeclaration(k_.getParent(), id, types);
      r = b_.CreateCall(vf, ops, i.getName());
    }
  }
  if (auto* ri = dyn_cast<Instruction>(r); ri && ri->getOpcode() == i.getOpcode())
    ri->copyIRFlags(&i);
  vec_[&i] = r;
}

// One block of the linearised code: its phis, its instructions under its
// mask, the masks of its outgoing edges.
void Lanes::block(BasicBlock* bb, bool loop_header) {
  Value* mask = mask_[bb];
  if (!loop_header)
    for (PHINode& phi : bb->phis()) {
      SmallVector<unsigned, 4> all_in;
      for (unsigned k = 0; k < phi.getNumIncomingValues(); ++k) all_in.push_back(k);
      vec_[&phi] = select_incoming(phi, all_in);
    }
  for (Instruction& i : *bb) instruction(i, mask);
  auto* br = dyn_cast<BranchInst>(bb->getTerminator());
  if (!br) return;  // a return: the lanes here are done
  if (br->isUnconditional() || br->getSuccessor(0) == br->getSuccessor(1)) {
    edge_[{bb, br->getSuccessor(0)}] = mask;
    return;
  }
  Value* c = get(br->getCondition());
  edge_[{bb, br->getSuccessor(0)}] = b_.CreateLogicalAnd(mask, c);
  edge_[{bb, br->getSuccessor(1)}] = b_.CreateLogicalAnd(mask, b_.CreateNot(c));
}

// The loop: one block that runs an iteration of every lane still in it,
// again while any is.
void Lanes::loop(Loop& l, const std::vector<BasicBlock*>& order) {
  BasicBlock* header = l.getHeader();
  SmallVector<Edge, 4> exits;
  l.getExitEdges(exits);
  // Lanes entering, and the header phis' first values.
  Value* enter = nullptr;
  for (BasicBlock* p : predecessors(header))
    if (!l.contains(p))
      if (Value* m = edge_mask(p, header)) enter = logical_or(enter, m);
  if (!enter) enter = none();
  std::vector<std::pair<PHINode*, Value*>> first;
  for (PHINode& phi : header->phis()) {
    SmallVector<unsigned, 2> outside;
    for (unsigned k = 0; k < phi.getNumIncomingValues(); ++k)
      if (!l.contains(phi.getIncomingBlock(k))) outside.push_back(k);
    first.emplace_back(&phi, select_incoming(phi, outside));
  }
  // Values of the loop used past it.
  std::vector<Instruction*> leaving;
  for (BasicBlock* bb : l.blocks())
    for (Instruction& i : *bb)
      if (!i.getType()->isVoidTy() && any_of(i.users(), [&](User* u) {
            auto* ui = cast<Instruction>(u);
            return !l.contains(ui->getParent());
          }))
        leaving.push_back(&i);

  BasicBlock* pre = b_.GetInsertBlock();
  Function* w = pre->getParent();
  BasicBlock* body = BasicBlock::Create(k_.getContext(), "lanes.loop", w);
  BasicBlock* after = BasicBlock::Create(k_.getContext(), "lanes.after", w);
  b_.CreateBr(body);
  b_.SetInsertPoint(body);
  PHINode* active = b_.CreatePHI(vec_type(b_.getInt1Ty()), 2, "lanes.active");
  active->addIncoming(enter, pre);
  std::vector<PHINode*> header_phis;
  for (auto& [phi, v] : first) {
    PHINode* p = b_.CreatePHI(v->getType(), 2, phi->getName());
    p->addIncoming(v, pre);
    vec_[phi] = p;
    header_phis.push_back(p);
  }
  std::vector<PHINode*> took;  // per exit edge: the lanes that took it so far
  for (std::size_t e = 0; e < exits.size(); ++e) {
    PHINode* p = b_.CreatePHI(vec_type(b_.getInt1Ty()), 2, "lanes.left");
    p->addIncoming(none(), pre);
    took.push_back(p);
  }
  std::vector<PHINode*> frozen;  // per leaving value: its lanes' values where they left
  for (Instruction* i : leaving) {
    PHINode* p = b_.CreatePHI(vec_type(i->getType()), 2, i->getName() + ".left");
    p->addIncoming(PoisonValue::get(p->getType()), pre);
    frozen.push_back(p);
  }

  mask_[header] = active;
  for (BasicBlock* bb : order) {
    if (!l.contains(bb)) continue;
    if (bb != header) {
      Value* m = nullptr;
      for (BasicBlock* p : predecessors(bb))
        if (Value* e = edge_mask(p, bb)) m = logical_or(m, e);
      mask_[bb] = m ? m : none();
    }
    block(bb, bb == header);
  }

  // The next iteration: the lanes that take a back edge, with its values.
  Value* again = nullptr;
  for (std::size_t p = 0; p < first.size(); ++p) {
    PHINode& phi = *first[p].first;
    SmallVector<unsigned, 2> inside;
    for (unsigned k = 0; k < phi.getNumIncomingValues(); ++k)
      if (l.contains(phi.getIncomingBlock(k))) inside.push_back(k);
    header_phis[p]->addIncoming(select_incoming(phi, inside), body);
  }
  for (BasicBlock* p : predecessors(header))
    if (l.contains(p))
      if (Value* m = edge_mask(p, header)) again = logical_or(again, m);
  if (!again) again = none();
  Value* leave = nullptr;
  std::vector<Value*> took_now;
  for (std::size_t e = 0; e < exits.size(); ++e) {
    Value* m = edge_mask(exits[e].first, exits[e].second);
    if (!m) m = none();
    leave = logical_or(leave, m);
    took_now.push_back(b_.CreateLogicalOr(took[e], m));
    took[e]->addIncoming(took_now.back(), body);
  }
  if (!leave) leave = none();
  std::vector<Value*> frozen_now;
  for (std::size_t v = 0; v < leaving.size(); ++v) {
    frozen_now.push_back(b_.CreateSelect(leave, vec_[leaving[v]], frozen[v]));
    frozen[v]->addIncoming(frozen_now.back(), body);
  }
  active->addIncoming(again, body);
  b_.CreateCondBr(b_.CreateOrReduce(again), body, after);

  b_.SetInsertPoint(after);
  for (std::size_t e = 0; e < exits.size(); ++e) edge_[exits[e]] = took_now[e];
  for (std::size_t v = 0; v < leaving.size(); ++v) vec_[leaving[v]] = frozen_now[v];
}

void Lanes::emit(Value* in_strip) {
  KernelLoopAnalyses a(k_);
  Loop* l = a.li.getTopLevelLoops()[0];
  std::vector<BasicBlock*> order;
  forward_order(k_, *l, order);
  bool loop_done = false;
  for (BasicBlock* bb : order) {
    if (l->contains(bb)) {
      if (!loop_done) loop(*l, order);
      loop_done = true;
      continue;
    }
    Value* m = bb == &k_.getEntryBlock() ? in_strip : nullptr;
    for (BasicBlock* p : predecessors(bb))
      if (Value* e = edge_mask(p, bb)) m = logical_or(m, e);
    mask_[bb] = m ? m : none();
    block(bb, false);
  }
}

}  // namespace

bool runs_in_lanes(Function& k) {
  for (Instruction& i : instructions(k))
    if (auto* c = dyn_cast<CallInst>(&i))
      if (c->getCalledFunction() && c->getCalledFunction()->getName() == kBarrierFn) return false;
  if (runs_in_rounds(k)) return false;
  KernelLoopAnalyses a(k);
  return lanes_loop(k, a) != nullptr;
}

unsigned lanes_width(Function& k, unsigned vector_bits) {
  uint64_t widest = 8;
  const DataLayout& dl = k.getParent()->getDataLayout();
  for (Instruction& i : instructions(k))
    if (!i.getType()->isVoidTy() && !i.getType()->isIntegerTy(1))
      widest = std::max<uint64_t>(widest, dl.getTypeSizeInBits(i.getType()).getFixedValue());
  // 1024 bits of it with AVX2 or AVX-512 (four ymm or two zmm registers):
  // each iteration's chain of dependent operations runs in several
  // independent registers at once. Measured on Collatz (AVX-512, 2 cores):
  // 8 lanes of 64 bits ran at 0.5x of 16, 32 lanes no faster than 16.
  const uint64_t bits = vector_bits >= 256 ? 1024 : 2 * uint64_t{vector_bits};
  return static_cast<unsigned>(std::clamp<uint64_t>(bits / widest, 4, 32));
}

void emit_lanes(Function& k, unsigned width, IRBuilder<>& b, const std::array<Value*, 3>& local_id,
                Value* in_strip, ArrayRef<Value*> args) {
  Lanes(k, width, b, local_id, args).emit(in_strip);
}

}  // namespace parasol::kernels
