// Work-group lowering.
//
// The kernel's CFG is cut at every barrier. A *region* is everything
// reachable from the kernel entry, or from the block right after a barrier,
// without crossing another barrier. Each region gets its own copy of those
// blocks wrapped in a z/y/x work-item loop nest; leaving the region (at a
// barrier or a return) ends one work-item's iteration, and once the loop
// nest finishes, control goes to the region after that barrier. Because
// OpenCL requires all work-items to reach the same barrier, the last
// work-item's choice is everyone's.
//
// Values defined before a barrier and used after it live in per-work-item
// slots (a stack array indexed by the local linear id), unless they are
// cheap functions of the launch geometry, which are recomputed instead.
//
// A barrier-free kernel with an inner loop may run in rounds (WorkItemRounds.h):
// the cuts before the loop's header and exit block are regions' starts like
// barriers, but each work-item keeps its own next region (a per-work-item
// state byte), each region runs only the work-items whose state names it,
// and the loop's region runs again while any work-item is left in it.
#include "WorkGroupLowering.h"

#include "WorkItemLanes.h"
#include "WorkItemRounds.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SetVector.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ReplaceConstant.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/Scalarizer.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <map>
#include <vector>

using namespace llvm;

namespace parasol::kernels {

std::string work_group_entry_name(StringRef kernel) {
  return ("__parasol_wg_" + kernel).str();
}

namespace {

constexpr const char* kPrivateIndexFn = "__parasol_private_index";
constexpr unsigned kLocalAS = 3;

// Offsets of NDRange's fields (checked against the C++ struct in Compiler.cpp).
constexpr uint64_t kWorkDimOff = 0, kOffsetOff = 8, kGlobalSizeOff = 32,
                   kLocalSizeOff = 56, kNumGroupsOff = 80;

bool is_call_to(const Instruction* i, StringRef name) {
  auto* c = dyn_cast<CallInst>(i);
  return c && c->getCalledFunction() && c->getCalledFunction()->getName() == name;
}

bool is_geometry_call(const Value* v) {
  auto* c = dyn_cast<CallInst>(v);
  if (!c || !c->getCalledFunction()) return false;
  StringRef n = c->getCalledFunction()->getName();
  return n == kLocalIdFn || n == kLocalSizeFn || n == kGroupIdFn || n == kNumGroupsFn ||
         n == kGlobalOffsetFn || n == kWorkDimFn || n == kPrivateIndexFn;
}

// A value that depends only on constants, arguments and the launch geometry,
// through pure arithmetic: recomputing it is cheaper than a private slot.
bool rematerialisable(Value* v, unsigned depth = 0) {
  if (isa<Constant>(v) || isa<Argument>(v)) return true;
  auto* i = dyn_cast<Instruction>(v);
  if (!i || depth > 6) return false;
  if (is_geometry_call(i)) return true;
  if (!isa<BinaryOperator>(i) && !isa<CastInst>(i) && !isa<CmpInst>(i) &&
      !isa<SelectInst>(i) && !isa<GetElementPtrInst>(i))
    return false;
  if (isa<BinaryOperator>(i) && i->mayHaveSideEffects()) return false;
  for (Value* op : i->operands())
    if (!rematerialisable(op, depth + 1)) return false;
  return true;
}

// Clones the expression tree of v before `at`.
Value* rematerialise(Value* v, Instruction* at) {
  auto* i = dyn_cast<Instruction>(v);
  if (!i) return v;
  Instruction* c = i->clone();
  for (unsigned k = 0; k < c->getNumOperands(); ++k)
    c->setOperand(k, rematerialise(c->getOperand(k), at));
  c->insertBefore(at);
  c->setName(i->getName() + ".remat");
  return c;
}

struct Region {
  BasicBlock* start = nullptr;
  SetVector<BasicBlock*> blocks;       // in discovery order
  SetVector<BasicBlock*> exit_barriers; // barrier blocks it can reach
  bool exits_by_return = false;
};

class KernelLowering {
 public:
  // lanes: the strip width when the kernel runs in lanes (WorkItemLanes.h), else 0.
  KernelLowering(Module& m, Function& k, unsigned lanes)
      : m_(m), k_(k), ctx_(m.getContext()), dl_(m.getDataLayout()), lanes_(lanes) {}
  Function* run();

 private:
  void strip_lifetime_markers();
  void split_barriers();
  void find_regions();
  void privatise();
  void build_entry();
  void emit_region(Region& r);
  void resolve_geometry(Function& w);
  void place_local_variables(Function& w);
  Value* select_dim(IRBuilder<>& b, Value* dim, const std::array<Value*, 3>& v, Value* fallback);
  Value* clone_uniform(Value* v, Instruction* at, DenseMap<Value*, Value*>& done);
  void emit_strips(IRBuilder<>& b);
  void emit_lanes_nest(IRBuilder<>& b);

  Module& m_;
  Function& k_;
  LLVMContext& ctx_;
  const DataLayout& dl_;
  unsigned lanes_;
  SmallPtrSet<BasicBlock*, 8> barrier_blocks_;
  std::vector<Region> regions_;
  DenseMap<BasicBlock*, unsigned> region_of_start_;  // region start -> index
  DenseMap<BasicBlock*, unsigned> region_after_barrier_;
  Function* w_ = nullptr;
  BasicBlock* w_entry_ = nullptr;
  Value* args_ = nullptr;
  Value* range_ = nullptr;
  Value* group_ = nullptr;
  Value* local_mem_ = nullptr;
  std::array<Value*, 3> local_size_{}, group_id_{}, num_groups_{}, offset_{};
  std::array<Value*, 3> lo_{}, hi_{};  // the local ids each region's loop nest runs over
  BasicBlock* strip_latch_ = nullptr;  // rounds: after the last region of a strip
  Value* work_dim_ = nullptr;
  Value* num_items_ = nullptr;
  AllocaInst* next_ = nullptr;
  std::optional<RoundsPlan> rounds_;
  DenseMap<Function*, Value*> round_value_;  // uniform placeholder -> its value this round
  AllocaInst* state_ = nullptr;  // rounds: each work-item's next region (0: none)
  std::vector<BasicBlock*> region_pre_;  // loop-nest preheader per region
  std::vector<std::pair<BasicBlock*, Region*>> pending_after_;
  std::vector<Value*> vmap_args_;               // kernel argument -> unpacked value
  std::vector<std::pair<AllocaInst*, AllocaInst*>> array_of_;  // alloca -> per-item array
  uint64_t private_bytes_ = 0;
};

void KernelLowering::strip_lifetime_markers() {
  // Lifetime markers would point into privatised arrays, not at allocas.
  std::vector<Instruction*> dead;
  for (Instruction& i : instructions(k_))
    if (auto* ii = dyn_cast<IntrinsicInst>(&i))
      if (ii->isLifetimeStartOrEnd()) dead.push_back(ii);
  for (Instruction* i : dead) i->eraseFromParent();
}

void KernelLowering::split_barriers() {
  std::vector<CallInst*> barriers;
  for (Instruction& i : instructions(k_))
    if (is_call_to(&i, kBarrierFn)) barriers.push_back(cast<CallInst>(&i));
  for (CallInst* c : barriers) {
    // Barrier block: just the call and a branch; its successor has it as
    // the only predecessor, so regions start on a phi-free block.
    BasicBlock* bb = c->getParent();
    BasicBlock* bar = bb->splitBasicBlock(c, "barrier");
    bar->splitBasicBlock(c->getNextNode(), "after.barrier");
    barrier_blocks_.insert(bar);
  }
}

void KernelLowering::find_regions() {
  std::vector<BasicBlock*> starts{&k_.getEntryBlock()};
  for (BasicBlock& bb : k_)
    if (barrier_blocks_.count(&bb)) {
      region_after_barrier_[&bb] = starts.size();
      starts.push_back(bb.getSingleSuccessor());
    }
  for (BasicBlock* s : starts) {
    Region r;
    r.start = s;
    std::vector<BasicBlock*> work{s};
    r.blocks.insert(s);
    while (!work.empty()) {
      BasicBlock* bb = work.back();
      work.pop_back();
      if (isa<ReturnInst>(bb->getTerminator())) r.exits_by_return = true;
      for (BasicBlock* succ : successors(bb)) {
        if (barrier_blocks_.count(succ)) {
          r.exit_barriers.insert(succ);
          continue;
        }
        if (r.blocks.insert(succ)) work.push_back(succ);
      }
    }
    regions_.push_back(std::move(r));
  }
}

// Gives every value that is live across a barrier a per-work-item slot.
void KernelLowering::privatise() {
  Function* index_fn = cast<Function>(
      m_.getOrInsertFunction(kPrivateIndexFn, FunctionType::get(Type::getInt64Ty(ctx_), false))
          .getCallee());
  index_fn->setDoesNotAccessMemory();
  index_fn->setDoesNotThrow();
  IRBuilder<> b(ctx_);

  // Allocas: always per work-item, so work-items never share private memory
  // (which also keeps the parallel-loop annotation truthful).
  std::vector<AllocaInst*> allocas;
  for (Instruction& i : instructions(k_))
    if (auto* a = dyn_cast<AllocaInst>(&i)) allocas.push_back(a);

  // Values: find those whose use can be reached from the definition through a
  // barrier block.
  std::vector<std::pair<Instruction*, std::vector<Use*>>> crossing;
  for (BasicBlock& bb : k_) {
    for (Instruction& i : bb) {
      if (isa<AllocaInst>(i) || i.getType()->isVoidTy()) continue;
      std::vector<Use*> far_uses;
      for (Use& u : i.uses()) {
        auto* user = cast<Instruction>(u.getUser());
        BasicBlock* ub = isa<PHINode>(user) ? cast<PHINode>(user)->getIncomingBlock(u) : user->getParent();
        if (ub == &bb) continue;
        // Walk backwards from the use to the definition.
        SmallPtrSet<BasicBlock*, 16> seen;
        std::vector<BasicBlock*> work{ub};
        bool crosses = false;
        while (!work.empty() && !crosses) {
          BasicBlock* x = work.back();
          work.pop_back();
          if (!seen.insert(x).second) continue;
          if (barrier_blocks_.count(x)) crosses = true;
          for (BasicBlock* p : predecessors(x))
            if (p != &bb) work.push_back(p);
        }
        if (crosses) far_uses.push_back(&u);
      }
      if (!far_uses.empty()) crossing.emplace_back(&i, std::move(far_uses));
    }
  }

  auto use_point = [](Use* u) -> Instruction* {
    auto* user = cast<Instruction>(u->getUser());
    if (auto* phi = dyn_cast<PHINode>(user)) return phi->getIncomingBlock(*u)->getTerminator();
    return user;
  };

  for (auto& [def, uses] : crossing) {
    if (rematerialisable(def)) {
      for (Use* u : uses) u->set(rematerialise(def, use_point(u)));
      continue;
    }
    // Slot array in the kernel entry for now; moved into the entry of the
    // work-group function (sized by the local size) when it is built.
    b.SetInsertPoint(&*k_.getEntryBlock().getFirstInsertionPt());
    auto* slot = b.CreateAlloca(def->getType(), nullptr, def->getName() + ".slot");
    allocas.push_back(slot);
    Instruction* after = def->getNextNode();
    if (isa<PHINode>(def)) after = &*def->getParent()->getFirstInsertionPt();
    b.SetInsertPoint(after);
    b.CreateStore(def, slot);
    for (Use* u : uses) {
      b.SetInsertPoint(use_point(u));
      u->set(b.CreateLoad(def->getType(), slot, def->getName() + ".reload"));
    }
  }

  // Replace each alloca with an array of them, indexed per work-item. The
  // array itself is created by build_entry(); here the uses go through a
  // placeholder base so regions can be cloned freely.
  for (AllocaInst* a : allocas) {
    std::optional<TypeSize> size = a->getAllocationSize(dl_);
    if (size && !size->isScalable()) private_bytes_ += size->getFixedValue();
    std::vector<Use*> uses;
    for (Use& u : a->uses()) uses.push_back(&u);
    for (Use* u : uses) {
      auto* user = cast<Instruction>(u->getUser());
      Instruction* at = isa<PHINode>(user)
                            ? cast<PHINode>(user)->getIncomingBlock(*u)->getTerminator()
                            : user;
      b.SetInsertPoint(at);
      Value* idx = b.CreateCall(index_fn);
      Value* elem = b.CreateGEP(a->getAllocatedType(), a, idx, a->getName() + ".wi");
      u->set(elem);
    }
  }
}

Value* KernelLowering::select_dim(IRBuilder<>& b, Value* dim, const std::array<Value*, 3>& v,
                                  Value* fallback) {
  if (auto* c = dyn_cast<ConstantInt>(dim)) {
    uint64_t d = c->getZExtValue();
    return d < 3 ? v[d] : fallback;
  }
  Value* r = fallback;
  for (int d = 2; d >= 0; --d)
    r = b.CreateSelect(b.CreateICmpEQ(dim, ConstantInt::get(dim->getType(), d)), v[d], r);
  return r;
}

void KernelLowering::build_entry() {
  Type* ptr = PointerType::getUnqual(ctx_);
  Type* i64 = Type::getInt64Ty(ctx_);
  auto* fty = FunctionType::get(Type::getVoidTy(ctx_), {ptr, ptr, ptr, ptr}, false);
  w_ = Function::Create(fty, GlobalValue::ExternalLinkage, work_group_entry_name(k_.getName()), m_);
  // Keep the kernel's target and math attributes; drop the kernel-only ones.
  AttributeSet fn_attrs = k_.getAttributes().getFnAttrs();
  for (const Attribute& a : fn_attrs)
    if (a.isStringAttribute() && a.getKindAsString() != "uniform-work-group-size")
      w_->addFnAttr(a);
  w_->addFnAttr(Attribute::NoUnwind);
  w_->addFnAttr(kPrivateBytesAttr, std::to_string(private_bytes_));
  w_->setVisibility(GlobalValue::DefaultVisibility);
  args_ = w_->getArg(0);
  range_ = w_->getArg(1);
  group_ = w_->getArg(2);
  local_mem_ = w_->getArg(3);
  args_->setName("args");
  range_->setName("range");
  group_->setName("group_id");
  local_mem_->setName("local_mem");
  for (unsigned i = 0; i < 4; ++i) w_->addParamAttr(i, Attribute::NoAlias);

  w_entry_ = BasicBlock::Create(ctx_, "entry", w_);
  IRBuilder<> b(w_entry_);
  auto load_field = [&](uint64_t off, unsigned d, const char* name) -> Value* {
    Value* p = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), range_, off + 8 * d);
    auto* l = b.CreateAlignedLoad(i64, p, Align(8), name);
    l->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(ctx_, {}));
    return l;
  };
  for (unsigned d = 0; d < 3; ++d) {
    local_size_[d] = load_field(kLocalSizeOff, d, "local_size");
    num_groups_[d] = load_field(kNumGroupsOff, d, "num_groups");
    offset_[d] = load_field(kOffsetOff, d, "global_offset");
    Value* gp = b.CreateConstInBoundsGEP1_64(i64, group_, d);
    group_id_[d] = b.CreateAlignedLoad(i64, gp, Align(8), "group_id");
  }
  (void)kGlobalSizeOff;
  work_dim_ = b.CreateAlignedLoad(b.getInt32Ty(), range_, Align(8), "work_dim");
  num_items_ = b.CreateMul(b.CreateMul(local_size_[0], local_size_[1]), local_size_[2], "num_items");
}

namespace {

// "r<i>", the prefix of region i's blocks. Appended to, not "r" + string:
// GCC 12 reports a false -Wrestrict in that operator+ at -O3 (its bug 105329).
std::string region_name(std::size_t i) {
  std::string name = "r";
  name += std::to_string(i);
  return name;
}

}  // namespace

// A round-uniform value (is_round_uniform) computed again before `at`, in the
// work-group function: the kernel's arguments as unpacked, uniform
// placeholders as this round's values.
Value* KernelLowering::clone_uniform(Value* v, Instruction* at, DenseMap<Value*, Value*>& done) {
  if (auto it = done.find(v); it != done.end()) return it->second;
  if (auto* a = dyn_cast<Argument>(v)) return vmap_args_[a->getArgNo()];
  auto* i = dyn_cast<Instruction>(v);
  if (!i) return v;
  if (auto* c = dyn_cast<CallInst>(i))
    if (auto it = round_value_.find(c->getCalledFunction()); it != round_value_.end()) return it->second;
  Instruction* c = i->clone();
  for (unsigned k = 0; k < c->getNumOperands(); ++k)
    c->setOperand(k, clone_uniform(c->getOperand(k), at, done));
  c->insertBefore(at);
  c->setName(i->getName() + ".uniform");
  done[v] = c;
  return c;
}

// Rounds run strip by strip: one row (fixed z, y) of at most kStripItems
// work-items at a time goes through every region, so that the slots a round
// reads and writes stay near the core (in L1 for nbody) whatever the
// work-group's size. Sets lo_/hi_ to the strip and strip_latch_ to the step
// to the next one; b is at the end of the entry block.
void KernelLowering::emit_strips(IRBuilder<>& b) {
  // The default 1D work-group in one strip (native_compiler.cpp's choose_local).
  constexpr uint64_t kStripItems = 256;
  Type* i64 = b.getInt64Ty();
  BasicBlock* entry = b.GetInsertBlock();
  BasicBlock* zh = BasicBlock::Create(ctx_, "strip.z", w_);
  BasicBlock* yh = BasicBlock::Create(ctx_, "strip.y", w_);
  BasicBlock* xh = BasicBlock::Create(ctx_, "strip.x", w_);
  BasicBlock* xl = BasicBlock::Create(ctx_, "strip.x.latch", w_);
  BasicBlock* yl = BasicBlock::Create(ctx_, "strip.y.latch", w_);
  BasicBlock* zl = BasicBlock::Create(ctx_, "strip.z.latch", w_);
  BasicBlock* out = BasicBlock::Create(ctx_, "strip.done", w_);
  b.CreateBr(zh);
  b.SetInsertPoint(zh);
  PHINode* z = b.CreatePHI(i64, 2, "strip.z");
  b.CreateBr(yh);
  b.SetInsertPoint(yh);
  PHINode* y = b.CreatePHI(i64, 2, "strip.y");
  b.CreateBr(xh);
  b.SetInsertPoint(xh);
  PHINode* x = b.CreatePHI(i64, 2, "strip.x");
  Value* x_end = b.CreateBinaryIntrinsic(Intrinsic::umin, b.CreateNUWAdd(x, b.getInt64(kStripItems)),
                                         local_size_[0], nullptr, "strip.x.end");
  lo_ = {x, y, z};
  hi_ = {x_end, b.CreateNUWAdd(y, b.getInt64(1)), b.CreateNUWAdd(z, b.getInt64(1))};
  b.CreateBr(region_pre_[0]);
  b.SetInsertPoint(xl);
  b.CreateCondBr(b.CreateICmpULT(x_end, local_size_[0]), xh, yl);
  b.SetInsertPoint(yl);
  Value* y1 = b.CreateNUWAdd(y, b.getInt64(1));
  b.CreateCondBr(b.CreateICmpULT(y1, local_size_[1]), yh, zl);
  b.SetInsertPoint(zl);
  Value* z1 = b.CreateNUWAdd(z, b.getInt64(1));
  b.CreateCondBr(b.CreateICmpULT(z1, local_size_[2]), zh, out);
  b.SetInsertPoint(out);
  b.CreateRetVoid();
  z->addIncoming(b.getInt64(0), entry);
  z->addIncoming(z1, zl);
  y->addIncoming(b.getInt64(0), zh);
  y->addIncoming(y1, yl);
  x->addIncoming(b.getInt64(0), yh);
  x->addIncoming(x_end, xl);
  strip_latch_ = xl;
}

void KernelLowering::emit_region(Region& r) {
  Type* i64 = Type::getInt64Ty(ctx_);
  unsigned idx = &r - regions_.data();
  std::string tag = region_name(idx);
  BasicBlock* pre = region_pre_[idx];
  BasicBlock* zh = BasicBlock::Create(ctx_, tag + ".z", w_);
  BasicBlock* yh = BasicBlock::Create(ctx_, tag + ".y", w_);
  BasicBlock* xh = BasicBlock::Create(ctx_, tag + ".x", w_);
  BasicBlock* xl = BasicBlock::Create(ctx_, tag + ".x.latch", w_);
  BasicBlock* yl = BasicBlock::Create(ctx_, tag + ".y.latch", w_);
  BasicBlock* zl = BasicBlock::Create(ctx_, tag + ".z.latch", w_);
  BasicBlock* after = BasicBlock::Create(ctx_, tag + ".done", w_);

  // Rounds: the loop's region runs again (from `round`, its uniform values
  // advanced in `next_round`) while any work-item is left in it; the first
  // region and the loop's count the work-items that go on in the loop (`any`).
  const bool rounds = rounds_.has_value();
  const unsigned loop_region = rounds ? region_after_barrier_[rounds_->head_cut] : 0;
  const unsigned exit_region = rounds ? region_after_barrier_[rounds_->exit_cut] : 0;
  const bool is_loop = rounds && idx == loop_region;
  const bool counts = rounds && (idx == 0 || is_loop);
  BasicBlock* round = is_loop ? BasicBlock::Create(ctx_, tag + ".round", w_) : nullptr;
  BasicBlock* next_round = is_loop ? BasicBlock::Create(ctx_, tag + ".next", w_) : nullptr;
  BasicBlock* nest_pre = pre;  // the block before the nest
  std::vector<Instruction*> state_accesses;

  IRBuilder<> b(pre);
  b.CreateBr(is_loop ? round : zh);
  std::vector<PHINode*> round_phis;
  if (is_loop) {
    DenseMap<Value*, Value*> done;
    b.SetInsertPoint(round);
    for (const RoundsPlan::Uniform& u : rounds_->uniforms) {
      Value* init = clone_uniform(u.init, pre->getTerminator(), done);
      PHINode* phi = b.CreatePHI(u.init->getType(), 2, u.placeholder->getName());
      phi->addIncoming(init, pre);
      round_phis.push_back(phi);
      round_value_[u.placeholder] = phi;
    }
    // Uniform loads, once per round: some work-item is in the loop (else the
    // round would not run), and it reaches the load when the uniform
    // conditions on the way hold.
    nest_pre = round;
    done.clear();
    for (const RoundsPlan::Load& l : rounds_->loads) {
      Instruction* at = b.CreateUnreachable();
      Value* cond = nullptr;
      for (auto [c, when] : l.conditions) {
        Value* v = clone_uniform(c, at, done);
        IRBuilder<> cb(at);
        if (!when) v = cb.CreateNot(v);
        cond = cond ? cb.CreateAnd(cond, v) : v;
      }
      at->eraseFromParent();
      Instruction* load = l.load->clone();
      if (!cond) {
        b.Insert(load);
        load->setOperand(0, clone_uniform(l.address, load, done));
        round_value_[l.placeholder] = load;
        continue;
      }
      BasicBlock* on = BasicBlock::Create(ctx_, tag + ".uniform.load", w_);
      BasicBlock* join = BasicBlock::Create(ctx_, tag + ".uniform.join", w_);
      b.CreateCondBr(cond, on, join);
      b.SetInsertPoint(on);
      Instruction* br = b.CreateBr(join);
      load->insertBefore(br);
      // Its address is computed under the same conditions (it may read
      // loaded values whose conditions these are).
      DenseMap<Value*, Value*> inner = done;
      load->setOperand(0, clone_uniform(l.address, load, inner));
      b.SetInsertPoint(join);
      PHINode* v = b.CreatePHI(load->getType(), 2, l.placeholder->getName());
      v->addIncoming(load, on);
      v->addIncoming(PoisonValue::get(load->getType()), nest_pre);
      round_value_[l.placeholder] = v;
      nest_pre = join;
    }
    b.CreateBr(zh);
  }
  b.SetInsertPoint(zh);
  PHINode* z = b.CreatePHI(i64, 2, "lid.z");
  PHINode* any_z = counts ? b.CreatePHI(b.getInt1Ty(), 2, "any.z") : nullptr;
  b.CreateBr(yh);
  b.SetInsertPoint(yh);
  PHINode* y = b.CreatePHI(i64, 2, "lid.y");
  PHINode* any_y = counts ? b.CreatePHI(b.getInt1Ty(), 2, "any.y") : nullptr;
  b.CreateBr(xh);
  b.SetInsertPoint(xh);
  PHINode* x = b.CreatePHI(i64, 2, "lid.x");
  PHINode* any_x = counts ? b.CreatePHI(b.getInt1Ty(), 2, "any.x") : nullptr;
  Value* linear = b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(z, local_size_[1]), y), local_size_[0]), x,
                              "local.linear");
  Value* state = rounds ? b.CreateGEP(b.getInt8Ty(), state_, linear, "state") : nullptr;

  // Clone the region's blocks.
  ValueToValueMapTy vmap;
  for (unsigned a = 0; a < k_.arg_size(); ++a) vmap[k_.getArg(a)] = vmap_args_[a];
  const bool many_exits = !rounds && r.exit_barriers.size() + (r.exits_by_return ? 1 : 0) > 1;
  auto exit_block = [&](int target) {
    BasicBlock* e = BasicBlock::Create(ctx_, tag + ".exit", w_);
    IRBuilder<> eb(e);
    if (many_exits) eb.CreateStore(eb.getInt32(target), next_);
    if (rounds) state_accesses.push_back(eb.CreateStore(eb.getInt8(target < 0 ? 0 : target), state));
    eb.CreateBr(xl);
    return e;
  };
  for (BasicBlock* bar : r.exit_barriers) vmap[bar] = exit_block(region_after_barrier_[bar]);
  BasicBlock* ret_exit = r.exits_by_return ? exit_block(-1) : nullptr;
  std::vector<BasicBlock*> clones;
  for (BasicBlock* bb : r.blocks) {
    BasicBlock* c = CloneBasicBlock(bb, vmap, "." + tag, w_);
    vmap[bb] = c;
    clones.push_back(c);
  }
  for (BasicBlock* c : clones)
    for (Instruction& i : *c) RemapInstruction(&i, vmap, RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
  // Drop phi inputs from blocks outside this region; returns end the item.
  for (BasicBlock* c : clones) {
    for (PHINode& phi : make_early_inc_range(c->phis())) {
      for (int k = phi.getNumIncomingValues() - 1; k >= 0; --k)
        if (phi.getIncomingBlock(k)->getParent() != w_) phi.removeIncomingValue(k, false);
    }
    if (auto* ret = dyn_cast<ReturnInst>(c->getTerminator())) {
      BranchInst::Create(ret_exit, c);
      ret->eraseFromParent();
    }
  }
  if (rounds && idx != 0) {
    // Only the work-items whose next region this is.
    auto* st = b.CreateLoad(b.getInt8Ty(), state, "state.now");
    state_accesses.push_back(st);
    b.CreateCondBr(b.CreateICmpEQ(st, b.getInt8(idx)), cast<BasicBlock>(vmap[r.start]), xl);
  } else {
    b.CreateBr(cast<BasicBlock>(vmap[r.start]));
  }

  // Resolve per-item placeholders in the clone.
  for (BasicBlock* c : clones)
    for (Instruction& i : make_early_inc_range(*c)) {
      auto* call = dyn_cast<CallInst>(&i);
      if (!call || !call->getCalledFunction()) continue;
      StringRef n = call->getCalledFunction()->getName();
      IRBuilder<> ib(call);
      Value* v = nullptr;
      if (n == kLocalIdFn)
        v = select_dim(ib, call->getArgOperand(0), {x, y, z}, ib.getInt64(0));
      else if (n == kPrivateIndexFn)
        v = linear;
      else if (auto it = round_value_.find(call->getCalledFunction()); it != round_value_.end())
        v = it->second;
      if (!v) continue;
      call->replaceAllUsesWith(v);
      call->eraseFromParent();
    }

  // Latches: x innermost, unit stride; the loops run at least once.
  b.SetInsertPoint(xl);
  Value* any1 = nullptr;  // whether a work-item so far goes on in the loop
  if (counts) {
    auto* st = b.CreateLoad(b.getInt8Ty(), state, "state.next");
    state_accesses.push_back(st);
    any1 = b.CreateOr(any_x, b.CreateICmpEQ(st, b.getInt8(loop_region)), "any.next");
    any_z->addIncoming(b.getFalse(), nest_pre);
    any_z->addIncoming(any1, zl);
    any_y->addIncoming(any_z, zh);
    any_y->addIncoming(any1, yl);
    any_x->addIncoming(any_y, yh);
    any_x->addIncoming(any1, xl);
  }
  Value* x1 = b.CreateNUWAdd(x, b.getInt64(1), "lid.x.next");
  auto* xbr = b.CreateCondBr(b.CreateICmpULT(x1, hi_[0]), xh, yl);
  b.SetInsertPoint(yl);
  Value* y1 = b.CreateNUWAdd(y, b.getInt64(1), "lid.y.next");
  auto* ybr = b.CreateCondBr(b.CreateICmpULT(y1, hi_[1]), yh, zl);
  b.SetInsertPoint(zl);
  Value* z1 = b.CreateNUWAdd(z, b.getInt64(1), "lid.z.next");
  auto* zbr = b.CreateCondBr(b.CreateICmpULT(z1, hi_[2]), zh, after);
  z->addIncoming(lo_[2], nest_pre);
  z->addIncoming(z1, zl);
  y->addIncoming(lo_[1], zh);
  y->addIncoming(y1, yl);
  x->addIncoming(lo_[0], yh);
  x->addIncoming(x1, xl);

  // Work-items of one region are independent between barriers (races on
  // memory there are undefined in OpenCL), so every plain access may be
  // reordered across iterations: say so to the vectoriser.
  MDNode* group = MDNode::getDistinct(ctx_, {});
  for (BasicBlock* c : clones)
    for (Instruction& i : *c) {
      if (auto* l = dyn_cast<LoadInst>(&i)) {
        if (!l->isSimple()) continue;
      } else if (auto* s = dyn_cast<StoreInst>(&i)) {
        if (!s->isSimple()) continue;
      } else if (!isa<MemIntrinsic>(&i)) {
        continue;
      }
      i.setMetadata(LLVMContext::MD_access_group, group);
    }
  for (Instruction* i : state_accesses) i->setMetadata(LLVMContext::MD_access_group, group);
  auto loop_id = [&](bool vectorise) {
    SmallVector<Metadata*, 3> ops{nullptr};
    ops.push_back(MDNode::get(ctx_, {MDString::get(ctx_, "llvm.loop.parallel_accesses"), group}));
    if (!vectorise) ops.push_back(MDNode::get(ctx_, {MDString::get(ctx_, "llvm.loop.vectorize.enable"),
                                                     ConstantAsMetadata::get(ConstantInt::getFalse(ctx_))}));
    MDNode* id = MDNode::getDistinct(ctx_, ops);
    id->replaceOperandWith(0, id);
    return id;
  };
  xbr->setMetadata(LLVMContext::MD_loop, loop_id(true));
  ybr->setMetadata(LLVMContext::MD_loop, loop_id(false));
  zbr->setMetadata(LLVMContext::MD_loop, loop_id(false));

  // After the nest: on to the next region (or out).
  b.SetInsertPoint(after);
  if (counts) {
    // On to the (next) round while a work-item is in the loop, else past it.
    b.CreateCondBr(any1, is_loop ? next_round : region_pre_[loop_region], region_pre_[exit_region]);
    if (is_loop) {
      b.SetInsertPoint(next_round);
      Instruction* to_round = b.CreateBr(round);
      DenseMap<Value*, Value*> done;
      for (std::size_t u = 0; u < round_phis.size(); ++u)
        round_phis[u]->addIncoming(clone_uniform(rounds_->uniforms[u].next, to_round, done), next_round);
    }
  } else if (!many_exits) {
    if (strip_latch_)
      b.CreateBr(strip_latch_);  // the work-items left have ended
    else if (r.exits_by_return)
      b.CreateRetVoid();
    else if (!r.exit_barriers.empty())
      b.CreateBr(region_pre_[region_after_barrier_[r.exit_barriers[0]]]);
    else
      b.CreateUnreachable();  // every path traps
  } else {
    Value* n = b.CreateLoad(b.getInt32Ty(), next_, "next.region");
    BasicBlock* out = BasicBlock::Create(ctx_, tag + ".return", w_);
    ReturnInst::Create(ctx_, out);
    SwitchInst* sw = b.CreateSwitch(n, out, r.exit_barriers.size());
    for (BasicBlock* bar : r.exit_barriers) {
      unsigned t = region_after_barrier_[bar];
      sw->addCase(b.getInt32(t), region_pre_[t]);
    }
  }
}

// Lanes (WorkItemLanes.h): z and y loops as usual, the x loop over strips
// of lanes_ work-items, the last strip masked to the local size.
void KernelLowering::emit_lanes_nest(IRBuilder<>& b) {
  Type* i64 = b.getInt64Ty();
  BasicBlock* before = b.GetInsertBlock();
  BasicBlock* zh = BasicBlock::Create(ctx_, "lanes.z", w_);
  BasicBlock* yh = BasicBlock::Create(ctx_, "lanes.y", w_);
  BasicBlock* xh = BasicBlock::Create(ctx_, "lanes.x", w_);
  BasicBlock* xl = BasicBlock::Create(ctx_, "lanes.x.latch", w_);
  BasicBlock* yl = BasicBlock::Create(ctx_, "lanes.y.latch", w_);
  BasicBlock* zl = BasicBlock::Create(ctx_, "lanes.z.latch", w_);
  BasicBlock* done = BasicBlock::Create(ctx_, "lanes.done", w_);
  b.CreateBr(zh);
  b.SetInsertPoint(zh);
  PHINode* z = b.CreatePHI(i64, 2, "lid.z");
  b.CreateBr(yh);
  b.SetInsertPoint(yh);
  PHINode* y = b.CreatePHI(i64, 2, "lid.y");
  b.CreateBr(xh);
  b.SetInsertPoint(xh);
  PHINode* x = b.CreatePHI(i64, 2, "lid.x");
  SmallVector<Constant*, 32> steps;
  for (unsigned l = 0; l < lanes_; ++l) steps.push_back(b.getInt64(l));
  Value* lanes = b.CreateAdd(b.CreateVectorSplat(lanes_, x), ConstantVector::get(steps), "lid.x.lanes");
  Value* in_strip = b.CreateICmpULT(lanes, b.CreateVectorSplat(lanes_, local_size_[0]), "in.strip");
  emit_lanes(k_, lanes_, b, {lanes, y, z}, in_strip, vmap_args_);
  b.CreateBr(xl);
  b.SetInsertPoint(xl);
  Value* x1 = b.CreateNUWAdd(x, b.getInt64(lanes_), "lid.x.next");
  b.CreateCondBr(b.CreateICmpULT(x1, local_size_[0]), xh, yl);
  b.SetInsertPoint(yl);
  Value* y1 = b.CreateNUWAdd(y, b.getInt64(1), "lid.y.next");
  b.CreateCondBr(b.CreateICmpULT(y1, local_size_[1]), yh, zl);
  b.SetInsertPoint(zl);
  Value* z1 = b.CreateNUWAdd(z, b.getInt64(1), "lid.z.next");
  b.CreateCondBr(b.CreateICmpULT(z1, local_size_[2]), zh, done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
  z->addIncoming(b.getInt64(0), before);
  z->addIncoming(z1, zl);
  y->addIncoming(b.getInt64(0), zh);
  y->addIncoming(y1, yl);
  x->addIncoming(b.getInt64(0), yh);
  x->addIncoming(x1, xl);
}

void KernelLowering::resolve_geometry(Function& w) {
  for (Instruction& i : make_early_inc_range(instructions(w))) {
    auto* call = dyn_cast<CallInst>(&i);
    if (!call || !call->getCalledFunction()) continue;
    StringRef n = call->getCalledFunction()->getName();
    IRBuilder<> b(call);
    Value* v = nullptr;
    Value* one = b.getInt64(1);
    Value* zero = b.getInt64(0);
    if (n == kLocalSizeFn) v = select_dim(b, call->getArgOperand(0), local_size_, one);
    else if (n == kGroupIdFn) v = select_dim(b, call->getArgOperand(0), group_id_, zero);
    else if (n == kNumGroupsFn) v = select_dim(b, call->getArgOperand(0), num_groups_, one);
    else if (n == kGlobalOffsetFn) v = select_dim(b, call->getArgOperand(0), offset_, zero);
    else if (n == kWorkDimFn) v = work_dim_;
    else if (n == kBarrierFn) {  // only reachable if left over in dead code
      call->eraseFromParent();
      continue;
    }
    if (!v) continue;
    call->replaceAllUsesWith(v);
    call->eraseFromParent();
  }
}

void KernelLowering::place_local_variables(Function& w) {
  // Kernel-scope __local variables: laid out in local_mem, by first use.
  SetVector<GlobalVariable*> locals;
  for (Instruction& i : instructions(w))
    for (Value* op : i.operands())
      if (auto* gv = dyn_cast<GlobalVariable>(op))
        if (gv->getAddressSpace() == kLocalAS) locals.insert(gv);
  uint64_t offset = 0;
  IRBuilder<> b(ctx_);
  b.SetInsertPoint(w_entry_, w_entry_->getFirstInsertionPt());
  DenseMap<GlobalVariable*, Value*> where;
  for (GlobalVariable* gv : locals) {
    uint64_t align = std::max<uint64_t>(gv->getAlign().valueOrOne().value(),
                                        dl_.getABITypeAlign(gv->getValueType()).value());
    offset = alignTo(offset, align);
    Value* p = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), local_mem_, offset, gv->getName());
    where[gv] = b.CreateAddrSpaceCast(p, gv->getType());
    offset += dl_.getTypeAllocSize(gv->getValueType());
  }
  for (Instruction& i : instructions(w))
    for (Use& op : i.operands())
      if (auto* gv = dyn_cast<GlobalVariable>(op.get()))
        if (auto it = where.find(gv); it != where.end()) op.set(it->second);
  w.addFnAttr(kLocalBytesAttr, std::to_string(offset));
}

Function* KernelLowering::run() {
  strip_lifetime_markers();
  split_barriers();
  rounds_ = plan_rounds(k_);
  if (rounds_) {
    barrier_blocks_.insert(rounds_->head_cut);
    barrier_blocks_.insert(rounds_->exit_cut);
  }
  find_regions();
  privatise();
  if (rounds_) private_bytes_ += 1;  // the state byte
  build_entry();

  // Kernel arguments, unpacked from the args block.
  IRBuilder<> b(w_entry_);
  Type* ptr = PointerType::getUnqual(ctx_);
  for (unsigned a = 0; a < k_.arg_size(); ++a) {
    Argument* arg = k_.getArg(a);
    Value* slot = b.CreateAlignedLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, args_, a), Align(8),
                                      "arg.slot");
    Value* v;
    if (arg->hasByValAttr()) {
      v = b.CreateAddrSpaceCast(slot, arg->getType());
    } else if (arg->getType()->isPointerTy()) {
      v = b.CreateAlignedLoad(arg->getType(), slot, Align(8), arg->getName());
    } else {
      v = b.CreateAlignedLoad(arg->getType(), slot, Align(1), arg->getName());
    }
    vmap_args_.push_back(v);
  }

  // Per-work-item arrays for every alloca of the kernel.
  for (Instruction& i : make_early_inc_range(k_.getEntryBlock())) {
    auto* a = dyn_cast<AllocaInst>(&i);
    if (!a) continue;
    Value* count = num_items_;
    if (a->isArrayAllocation())
      count = b.CreateMul(b.CreateZExtOrTrunc(a->getArraySize(), b.getInt64Ty()), count);
    AllocaInst* arr = b.CreateAlloca(a->getAllocatedType(), count, a->getName() + ".priv");
    arr->setAlignment(a->getAlign());
    array_of_.emplace_back(a, arr);
  }
  for (auto& [a, arr] : array_of_) {
    a->replaceAllUsesWith(arr);
    a->eraseFromParent();
  }
  // Allocas outside the entry block (rare: VLAs are not OpenCL) are not handled.

  bool any_many = false;
  for (Region& r : regions_)
    any_many |= r.exit_barriers.size() + (r.exits_by_return ? 1 : 0) > 1;
  if (rounds_)
    state_ = b.CreateAlloca(b.getInt8Ty(), num_items_, "round.state");
  else if (any_many)
    next_ = b.CreateAlloca(b.getInt32Ty(), nullptr, "next");

  if (lanes_) {
    emit_lanes_nest(b);
  } else {
    for (size_t i = 0; i < regions_.size(); ++i)
      region_pre_.push_back(BasicBlock::Create(ctx_, region_name(i) + ".pre", w_));
    if (rounds_) {
      emit_strips(b);
    } else {
      lo_ = {b.getInt64(0), b.getInt64(0), b.getInt64(0)};
      hi_ = local_size_;
      b.CreateBr(region_pre_[0]);
    }
    for (Region& r : regions_) emit_region(r);
  }

  resolve_geometry(*w_);
  place_local_variables(*w_);

  return w_;
}

}  // namespace

PreservedAnalyses WorkGroupLoweringPass::run(Module& m, ModuleAnalysisManager& am) {
  // Constant expressions over __local variables become instructions, so
  // they can be re-pointed into local_mem per work-group function.
  std::vector<Constant*> locals;
  for (GlobalVariable& gv : m.globals())
    if (gv.getAddressSpace() == kLocalAS) locals.push_back(&gv);
  if (!locals.empty()) convertUsersOfConstantsToInstructions(locals);

  std::vector<Function*> kernels;
  for (Function& f : m)
    if (!f.isDeclaration() && f.getCallingConv() == CallingConv::SPIR_KERNEL) kernels.push_back(&f);
  if (kernels.empty()) return PreservedAnalyses::all();
  // A kernel that runs in rounds has its vector values split into scalars
  // first: LLVM's loop vectoriser takes no loop holding vector values
  // (float4 arithmetic, loads and stores), and scalar values get per-item
  // slots that are consecutive across work-items.
  FunctionAnalysisManager& fam = am.getResult<FunctionAnalysisManagerModuleProxy>(m).getManager();
  for (Function* k : kernels) {
    if (!runs_in_rounds(*k)) continue;
    FunctionPassManager fpm;
    ScalarizerPassOptions so;
    so.ScalarizeLoadStore = true;
    fpm.addPass(ScalarizerPass(so));
    fpm.addPass(InstCombinePass());
    fam.invalidate(*k, fpm.run(*k, fam));
  }
  for (Function* k : kernels) {
    unsigned lanes = 0;
    if (runs_in_lanes(*k)) {
      TypeSize bits = fam.getResult<TargetIRAnalysis>(*k).getRegisterBitWidth(
          TargetTransformInfo::RGK_FixedWidthVector);
      lanes = lanes_width(*k, static_cast<unsigned>(bits.getKnownMinValue()));
    }
    KernelLowering(m, *k, lanes).run();
  }
  // The per-item originals now refer into the new functions; drop them.
  // A kernel still called from elsewhere keeps a declaration.
  for (Function* k : kernels) {
    k->dropAllReferences();
    if (k->use_empty()) k->eraseFromParent();
  }
  for (GlobalVariable* gv : [&] {
         std::vector<GlobalVariable*> v;
         for (GlobalVariable& g : m.globals())
           if (g.getAddressSpace() == kLocalAS) v.push_back(&g);
         return v;
       }())
    if (gv->use_empty()) gv->eraseFromParent();
  if (Function* f = m.getFunction(kPrivateIndexFn); f && f->use_empty()) f->eraseFromParent();
  for (Function& f : make_early_inc_range(m))
    if (f.getName().starts_with(kRoundValuePrefix) && f.use_empty()) f.eraseFromParent();
  return PreservedAnalyses::none();
}

}  // namespace parasol::kernels
