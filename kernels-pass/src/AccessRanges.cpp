// The access-range analysis (access_ranges.h): for every kernel, the bytes
// each buffer argument is read and written at, as affine functions of the
// work-item's variables with launch-time coefficients, and whether a launch
// may be split into blocks of groups along each dimension.
//
// It runs on the front end's module with the built-ins linked and inlined,
// before work-group lowering. There, get_global_id(d) is
// __parasol_group_id(d) * __parasol_local_size(d) + __parasol_local_id(d)
// + __parasol_global_offset(d): each placeholder call is a symbol ScalarEvolution
// keeps opaque, so an index is a SCEV over exactly the symbols the result
// is written in, and every memory access (vstore, atomic_add, async copies)
// is an instruction. After lowering, values live across a barrier are
// reloaded from per-work-item slots, which ScalarEvolution cannot see
// through, and the local ids become loop counters of the work-item loops:
// the lowered module says less. (It also keeps this file independent of
// WorkGroupLowering.cpp.)
//
// What is assumed: index arithmetic does not wrap (a sign or zero extension
// and a truncation are taken as the identity, as C's signed overflow being
// undefined lets a compiler do), and a loop whose backedge count evaluates
// negative at launch is never entered (ScalarEvolution's count holds where
// the loop runs). A guarded access (if (i < n)) is taken as unguarded: its
// hull can only grow.
#include "Internal.h"
#include "parasol/kernels/access_ranges.h"

#include <set>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/IPO/GlobalDCE.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/LoopRotation.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

namespace parasol::kernels {

namespace {

using Node = RangeNode;
using Op = RangeNode::Op;

// The front end's address spaces (-ffake-address-space-map).
constexpr unsigned kPrivateAS = 0, kGlobalAS = 1, kConstantAS = 2, kLocalAS = 3;

// An affine form over the work-item's variables; coefficients are nodes.
struct Form {
  std::uint32_t c0 = 0;
  std::vector<std::pair<RangeVar, std::uint32_t>> terms;
  bool invariant() const { return terms.empty(); }
};

// Builds a kernel's nodes, folding constants so the forms print readably.
class Nodes {
 public:
  explicit Nodes(std::vector<Node>& out) : out_(out) {
    if (out_.empty()) constant(0);  // node 0 is the constant 0
  }
  std::uint32_t constant(std::int64_t v) { return add_node({Op::Const, v, 0, 0, 64, false}); }
  std::uint32_t leaf(Op op, std::int64_t v) { return add_node({op, v, 0, 0, 64, false}); }
  std::uint32_t arg(unsigned index, unsigned width, bool is_signed) {
    return add_node({Op::Arg, static_cast<std::int64_t>(index), 0, 0,
                     static_cast<std::uint8_t>(width), is_signed});
  }
  std::uint32_t binary(Op op, std::uint32_t a, std::uint32_t b) {
    const Node &x = out_[a], &y = out_[b];
    if (x.op == Op::Const && y.op == Op::Const) {
      if (op == Op::Add) return constant(x.value + y.value);
      if (op == Op::Mul) return constant(x.value * y.value);
    }
    if (op == Op::Add) {
      if (is_const(a, 0)) return b;
      if (is_const(b, 0)) return a;
    }
    if (op == Op::Mul) {
      if (is_const(a, 0) || is_const(b, 0)) return constant(0);
      if (is_const(a, 1)) return b;
      if (is_const(b, 1)) return a;
    }
    return add_node({op, 0, a, b, 64, false});
  }
  bool is_const(std::uint32_t n, std::int64_t v) const {
    return out_[n].op == Op::Const && out_[n].value == v;
  }

 private:
  std::uint32_t add_node(Node n) {
    for (std::uint32_t i = 0; i < out_.size(); ++i) {  // small: dedupe by search
      const Node& o = out_[i];
      if (o.op == n.op && o.value == n.value && o.a == n.a && o.b == n.b && o.width == n.width &&
          o.is_signed == n.is_signed)
        return i;
    }
    out_.push_back(n);
    return static_cast<std::uint32_t>(out_.size() - 1);
  }
  std::vector<Node>& out_;
};

// SCEV -> Form, for one kernel. Fails (nullopt, with why) on what is not
// affine in the variables or not made of the launch's symbols.
class Converter {
 public:
  Converter(llvm::ScalarEvolution& se, KernelAccessRanges& k) : se_(se), k_(k), nodes_(k.nodes) {}

  std::optional<Form> convert(const llvm::SCEV* s, bool is_signed = true) {
    using namespace llvm;
    if (auto* c = dyn_cast<SCEVConstant>(s)) {
      const APInt& v = c->getAPInt();
      if (v.getBitWidth() > 64) return fail("a constant wider than 64 bits");
      return Form{nodes_.constant(is_signed ? v.getSExtValue()
                                            : static_cast<std::int64_t>(v.getZExtValue())), {}};
    }
    if (auto* e = dyn_cast<SCEVSignExtendExpr>(s)) return convert(e->getOperand(), true);
    if (auto* e = dyn_cast<SCEVZeroExtendExpr>(s)) return convert(e->getOperand(), false);
    if (auto* e = dyn_cast<SCEVTruncateExpr>(s)) return convert(e->getOperand(), is_signed);
    if (auto* e = dyn_cast<SCEVAddExpr>(s)) {
      Form sum;
      for (const SCEV* op : e->operands()) {
        auto f = convert(op, is_signed);
        if (!f) return std::nullopt;
        sum = add(sum, *f);
      }
      return sum;
    }
    if (auto* e = dyn_cast<SCEVMulExpr>(s)) {
      Form product{nodes_.constant(1), {}};
      for (const SCEV* op : e->operands()) {
        auto f = convert(op, is_signed);
        if (!f) return std::nullopt;
        auto p = multiply(product, *f);
        if (!p) return fail("an index that is not affine (a product of work-item variables)");
        product = *p;
      }
      return product;
    }
    if (auto* e = dyn_cast<SCEVAddRecExpr>(s)) {
      if (!e->isAffine()) return fail("an index that is not affine in a loop counter");
      auto start = convert(e->getStart(), is_signed);
      auto step = convert(e->getStepRecurrence(se_), is_signed);
      if (!start || !step) return std::nullopt;
      if (!step->invariant()) return fail("a loop stride that depends on the work-item");
      auto trip = loop_variable(e->getLoop());
      if (!trip) return std::nullopt;
      Form t{0, {{*trip, nodes_.constant(1)}}};
      return add(*start, *multiply(t, *step));
    }
    if (auto* e = dyn_cast<SCEVUDivExpr>(s)) return invariant_binary(Op::UDiv, e->getLHS(), e->getRHS(), is_signed);
    if (auto* e = dyn_cast<SCEVMinMaxExpr>(s)) {
      Op op = isa<SCEVSMaxExpr>(e) ? Op::SMax : isa<SCEVSMinExpr>(e) ? Op::SMin
              : isa<SCEVUMaxExpr>(e) ? Op::UMax : Op::UMin;
      return fold_invariant(op, e->operands(), is_signed);
    }
    if (auto* e = dyn_cast<SCEVSequentialUMinExpr>(s))
      return fold_invariant(Op::UMin, e->operands(), is_signed);
    if (auto* u = dyn_cast<SCEVUnknown>(s)) return unknown(u->getValue(), is_signed);
    return fail("an index made of something other than the launch and scalar arguments");
  }

  std::string why;

 private:
  std::nullopt_t fail(const char* reason) {
    if (why.empty()) why = reason;
    return std::nullopt;
  }

  Form add(const Form& a, const Form& b) {
    Form r{nodes_.binary(Op::Add, a.c0, b.c0), a.terms};
    for (const auto& [v, c] : b.terms) {
      auto it = std::find_if(r.terms.begin(), r.terms.end(), [&](auto& t) { return t.first == v; });
      if (it == r.terms.end()) r.terms.emplace_back(v, c);
      else it->second = nodes_.binary(Op::Add, it->second, c);
    }
    return r;
  }

  std::optional<Form> multiply(const Form& a, const Form& b) {
    if (!a.invariant() && !b.invariant()) return std::nullopt;
    const Form& f = a.invariant() ? b : a;
    std::uint32_t k = a.invariant() ? a.c0 : b.c0;
    Form r{nodes_.binary(Op::Mul, f.c0, k), {}};
    for (const auto& [v, c] : f.terms) r.terms.emplace_back(v, nodes_.binary(Op::Mul, c, k));
    return r;
  }

  std::optional<Form> invariant_binary(Op op, const llvm::SCEV* x, const llvm::SCEV* y, bool is_signed) {
    auto a = convert(x, is_signed), b = convert(y, is_signed);
    if (!a || !b) return std::nullopt;
    if (!a->invariant() || !b->invariant())
      return fail("a division, minimum or maximum of work-item variables");
    return Form{nodes_.binary(op, a->c0, b->c0), {}};
  }

  std::optional<Form> fold_invariant(Op op, llvm::ArrayRef<const llvm::SCEV*> ops, bool is_signed) {
    std::optional<Form> acc;
    for (const llvm::SCEV* o : ops) {
      auto f = convert(o, is_signed);
      if (!f) return std::nullopt;
      if (!f->invariant()) return fail("a division, minimum or maximum of work-item variables");
      acc = acc ? Form{nodes_.binary(op, acc->c0, f->c0), {}} : *f;
    }
    return acc;
  }

  // A loop's trip counter: over [0, backedge count].
  std::optional<RangeVar> loop_variable(const llvm::Loop* l) {
    if (auto it = loops_.find(l); it != loops_.end()) return RangeVar{RangeVar::Kind::LoopTrip, it->second};
    // The exact count, else an upper bound (a loop with a break); a bound
    // that only the counter's type gives (2^31 - 2 for an int counter whose
    // exit test reads memory) bounds nothing useful: unknown.
    const llvm::SCEV* count = se_.getBackedgeTakenCount(l);
    if (llvm::isa<llvm::SCEVCouldNotCompute>(count)) {
      count = se_.getSymbolicMaxBackedgeTakenCount(l);
      auto* c = llvm::dyn_cast<llvm::SCEVConstant>(count);
      if (c && c->getAPInt().getActiveBits() >= 31) return fail("a loop whose trip count is unknown");
    }
    if (llvm::isa<llvm::SCEVCouldNotCompute>(count)) return fail("a loop whose trip count is unknown");
    // The count of an inner loop may be affine in outer loops' counters and
    // in the work-item's ids; those loops get their numbers first, so a
    // loop's bound only names loops numbered before it.
    auto f = convert(count, true);
    if (!f) return std::nullopt;
    auto index = static_cast<std::uint32_t>(k_.loop_backedges.size());
    k_.loop_backedges.push_back({f->c0, f->terms});
    loops_[l] = index;
    return RangeVar{RangeVar::Kind::LoopTrip, index};
  }

  std::optional<Form> unknown(llvm::Value* v, bool is_signed) {
    if (auto* a = llvm::dyn_cast<llvm::Argument>(v); a && a->getType()->isIntegerTy())
      return Form{nodes_.arg(a->getArgNo(), a->getType()->getIntegerBitWidth(), is_signed), {}};
    // Signed division and remainders and shifts (n / 16 bounding a tiled
    // loop) are opaque to ScalarEvolution; of launch values, they are nodes.
    if (auto* bo = llvm::dyn_cast<llvm::BinaryOperator>(v)) {
      std::optional<Op> op;
      switch (bo->getOpcode()) {
        case llvm::Instruction::SDiv: op = Op::SDiv; break;
        case llvm::Instruction::SRem: op = Op::SRem; break;
        case llvm::Instruction::URem: op = Op::URem; break;
        case llvm::Instruction::AShr: op = Op::AShr; break;
        case llvm::Instruction::LShr: op = Op::LShr; break;
        default: break;
      }
      if (op) {
        bool sign = *op == Op::SDiv || *op == Op::SRem || *op == Op::AShr;
        return invariant_binary(*op, se_.getSCEV(bo->getOperand(0)), se_.getSCEV(bo->getOperand(1)), sign);
      }
    }
    auto* call = llvm::dyn_cast<llvm::CallInst>(v);
    llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
    if (!callee) return fail("a value loaded from memory or computed by a call");
    llvm::StringRef name = callee->getName();
    if (name == "__parasol_work_dim") return Form{nodes_.leaf(Op::WorkDim, 0), {}};
    if (!name.starts_with("__parasol_") || call->arg_size() != 1)
      return fail("a value loaded from memory or computed by a call");
    auto* dim = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0));
    if (!dim || dim->getZExtValue() > 2) return fail("a work-item function of a dimension not known at compile time");
    auto d = static_cast<std::uint32_t>(dim->getZExtValue());
    if (name == "__parasol_group_id") return Form{0, {{{RangeVar::Kind::GroupId, d}, nodes_.constant(1)}}};
    if (name == "__parasol_local_id") return Form{0, {{{RangeVar::Kind::LocalId, d}, nodes_.constant(1)}}};
    if (name == "__parasol_local_size") return Form{nodes_.leaf(Op::LocalSize, d), {}};
    if (name == "__parasol_num_groups") return Form{nodes_.leaf(Op::NumGroups, d), {}};
    if (name == "__parasol_global_offset") return Form{nodes_.leaf(Op::GlobalOffset, d), {}};
    return fail("a value loaded from memory or computed by a call");
  }

  llvm::ScalarEvolution& se_;
  KernelAccessRanges& k_;
  Nodes nodes_;
  std::map<const llvm::Loop*, std::uint32_t> loops_;
};

void make_whole(ArgAccess& a, const std::string& why) {
  if (a.kind == ArgAccess::Kind::Whole) return;
  a.kind = ArgAccess::Kind::Whole;
  a.sites.clear();
  a.whole_reason = why;
}

// Analyses one kernel's memory accesses (the module simplified by
// simplify()).
class KernelAnalysis {
 public:
  KernelAnalysis(llvm::Function& f, const KernelInfo& info, llvm::ScalarEvolution& se)
      : f_(f), se_(se), conv_(se, out_) {
    out_.kernel = info.name;
    for (std::uint32_t i = 0; i < info.args.size(); ++i) {
      const ArgInfo& a = info.args[i];
      if (a.kind != ArgKind::GlobalPointer && a.kind != ArgKind::ConstantPointer) continue;
      slot_[i] = out_.args.size();
      out_.args.push_back(ArgAccessRanges{i, a.name, {}, {}, false});
    }
  }

  KernelAccessRanges run() {
    const llvm::DataLayout& dl = f_.getParent()->getDataLayout();
    for (llvm::BasicBlock& bb : f_)
      for (llvm::Instruction& i : bb) {
        if (auto* l = llvm::dyn_cast<llvm::LoadInst>(&i)) {
          access(l->getPointerOperand(), dl.getTypeStoreSize(l->getType()), false);
        } else if (auto* s = llvm::dyn_cast<llvm::StoreInst>(&i)) {
          access(s->getPointerOperand(), dl.getTypeStoreSize(s->getValueOperand()->getType()), true);
        } else if (auto* a = llvm::dyn_cast<llvm::AtomicRMWInst>(&i)) {
          atomic(a->getPointerOperand(), dl.getTypeStoreSize(a->getValOperand()->getType()));
        } else if (auto* x = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&i)) {
          atomic(x->getPointerOperand(), dl.getTypeStoreSize(x->getNewValOperand()->getType()));
        } else if (auto* m = llvm::dyn_cast<llvm::MemIntrinsic>(&i)) {
          auto* len = llvm::dyn_cast<llvm::ConstantInt>(m->getLength());
          std::uint64_t bytes = len ? len->getZExtValue() : 0;
          access(m->getDest(), bytes, true, !len);
          if (auto* t = llvm::dyn_cast<llvm::MemTransferInst>(m)) access(t->getSource(), bytes, false, !len);
        } else if (auto* c = llvm::dyn_cast<llvm::CallBase>(&i)) {
          call(*c);
        }
      }
    decide();
    return std::move(out_);
  }

 private:
  ArgAccessRanges* slot_of(const llvm::Value* object) {
    auto* a = llvm::dyn_cast<llvm::Argument>(object);
    if (!a || a->getParent() != &f_) return nullptr;
    auto it = slot_.find(a->getArgNo());
    return it == slot_.end() ? nullptr : &out_.args[it->second];
  }

  // Memory no other work-group and no buffer argument shares: private
  // stack, __local, program-scope constants, and the kernel's arguments
  // that are not buffers (a struct passed by value, an image's descriptor;
  // the pixels an image descriptor points to are reached through a loaded
  // pointer, of unknown origin).
  static bool is_own_memory(const llvm::Value* object) {
    if (llvm::isa<llvm::AllocaInst>(object) || llvm::isa<llvm::Argument>(object)) return true;
    unsigned as = object->getType()->getPointerAddressSpace();
    if (as == kLocalAS) return true;
    if (auto* g = llvm::dyn_cast<llvm::GlobalVariable>(object)) return g->isConstant() || as == kPrivateAS;
    return false;
  }

  void access(llvm::Value* ptr, std::uint64_t bytes, bool write, bool unknown_length = false) {
    llvm::SmallVector<const llvm::Value*, 4> objects;
    llvm::getUnderlyingObjects(ptr, objects, nullptr, 0);
    std::vector<ArgAccessRanges*> args;
    for (const llvm::Value* o : objects) {
      if (ArgAccessRanges* a = slot_of(o)) {
        args.push_back(a);
      } else if (auto* g = llvm::dyn_cast<llvm::GlobalVariable>(o); g && !is_own_memory(o)) {
        if (write) written_globals_.push_back(g->getName().str());
      } else if (!is_own_memory(o)) {
        // A pointer loaded from memory, made from an integer, ...: it may
        // point into any buffer.
        for (ArgAccessRanges& a : out_.args)
          make_whole(write ? a.writes : a.reads, "an access through a pointer of unknown origin");
        return;
      }
    }
    if (args.empty()) return;
    auto acc = [&](ArgAccessRanges* a) -> ArgAccess& { return write ? a->writes : a->reads; };
    if (args.size() > 1) {
      for (ArgAccessRanges* a : args) make_whole(acc(a), "a pointer chosen at run time between arguments");
      return;
    }
    ArgAccess& target = acc(args[0]);
    if (target.kind == ArgAccess::Kind::Whole) return;
    if (unknown_length) return make_whole(target, "a copy or fill of a length not known at compile time");
    const llvm::SCEV* s = se_.getSCEV(ptr);
    const llvm::SCEV* base = se_.getPointerBase(s);
    auto* u = llvm::dyn_cast<llvm::SCEVUnknown>(base);
    // The base may be the argument cast to the generic address space (a
    // built-in's generic overload): the same address.
    if (!u || slot_of(u->getValue()->stripPointerCasts()) != args[0])
      return make_whole(target, "an address not affine from the argument");
    conv_.why.clear();
    auto form = conv_.convert(se_.removePointerBase(s));
    if (!form) return make_whole(target, "an index with " + conv_.why);
    target.kind = ArgAccess::Kind::Sites;
    for (const AccessSite& o : target.sites)
      if (o.c0 == form->c0 && o.terms == form->terms && o.bytes == bytes) return;  // nodes are unique
    target.sites.push_back(AccessSite{form->c0, form->terms, bytes});
  }

  void atomic(llvm::Value* ptr, std::uint64_t bytes) {
    access(ptr, bytes, false);
    access(ptr, bytes, true);
    llvm::SmallVector<const llvm::Value*, 4> objects;
    llvm::getUnderlyingObjects(ptr, objects, nullptr, 0);
    for (const llvm::Value* o : objects)
      if (ArgAccessRanges* a = slot_of(o)) a->atomics = true;
  }

  // A call left after inlining (printf, a host function, an intrinsic):
  // a buffer pointer it is given may be read and written anywhere.
  void call(llvm::CallBase& c) {
    if (auto* ii = llvm::dyn_cast<llvm::IntrinsicInst>(&c))
      if (ii->isAssumeLikeIntrinsic() || ii->isLifetimeStartOrEnd() || llvm::isa<llvm::DbgInfoIntrinsic>(ii))
        return;
    for (llvm::Value* op : c.args()) {
      if (!op->getType()->isPointerTy()) continue;
      llvm::SmallVector<const llvm::Value*, 4> objects;
      llvm::getUnderlyingObjects(op, objects, nullptr, 0);
      for (const llvm::Value* o : objects)
        if (ArgAccessRanges* a = slot_of(o)) {
          make_whole(a->reads, "passed to a call");
          make_whole(a->writes, "passed to a call");
        }
    }
  }

  // The static part of the split decision; check_split() does the rest
  // with the launch's values.
  void decide() {
    std::string refusal;
    for (const std::string& g : written_globals_) {
      refusal = "writes the program-scope variable '" + g + "' (one copy per device)";
      break;
    }
    for (const ArgAccessRanges& a : out_.args) {
      if (!refusal.empty()) break;
      if (a.atomics) refusal = "global atomics on '" + a.name + "'";
      else if (a.writes.kind == ArgAccess::Kind::Whole)
        refusal = "writes to '" + a.name + "' cannot be bounded: " + a.writes.whole_reason;
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (std::size_t i = 0; i < out_.args.size(); ++i)
      for (std::size_t j = i + 1; j < out_.args.size(); ++j)
        if (out_.args[i].writes.kind != ArgAccess::Kind::None &&
            out_.args[j].writes.kind != ArgAccess::Kind::None)
          pairs.emplace_back(out_.args[i].arg, out_.args[j].arg);
    for (unsigned d = 0; d < 3; ++d) {
      SplitVerdict& v = out_.split[d];
      v.reason = refusal;
      // Every write must move with the group along d: one that does not is
      // written by every block.
      for (const ArgAccessRanges& a : out_.args) {
        if (!v.reason.empty()) break;
        for (const AccessSite& s : a.writes.sites)
          if (std::none_of(s.terms.begin(), s.terms.end(),
                           [&](auto& t) { return t.first == RangeVar{RangeVar::Kind::GroupId, d}; })) {
            v.reason = "a write to '" + a.name + "' does not depend on the group along dimension " +
                       std::to_string(d);
            break;
          }
      }
      v.possible = v.reason.empty();
      if (v.possible) v.distinct_buffers = pairs;
    }
  }

  llvm::Function& f_;
  llvm::ScalarEvolution& se_;
  KernelAccessRanges out_;
  Converter conv_;
  std::map<std::uint32_t, std::size_t> slot_;  // argument index -> out_.args
  std::vector<std::string> written_globals_;
};

// One body per kernel, in SSA form with canonical loops: what
// ScalarEvolution needs to see indexes and trip counts.
void simplify(llvm::Module& m, llvm::ModuleAnalysisManager& mam) {
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    f.removeFnAttr(llvm::Attribute::OptimizeNone);
    f.removeFnAttr(llvm::Attribute::NoInline);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
  }
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::AlwaysInlinerPass());
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  fpm.addPass(llvm::EarlyCSEPass());
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::SimplifyCFGPass());
  fpm.addPass(llvm::LoopSimplifyPass());
  // Rotated loops (a guard, then a do-while) make the backedge count that
  // of the body: the header of a for loop runs once more than its body.
  fpm.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::LoopRotatePass()));
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(m, mam);
}

// The dimensions (bit d) along which the kernel, or a function it calls,
// asks for what a block's launch answers differently from the whole
// launch's: get_group_id, get_num_groups, get_global_size and
// get_global_offset (a block is a launch of its own groups, at its own
// offset). A dimension not known at compile time counts for all three.
unsigned launch_bound_dims(llvm::Module& m, const std::string& kernel) {
  static constexpr const char* kAsked[] = {"get_group_id", "get_num_groups", "get_global_size",
                                           "get_global_offset"};
  unsigned dims = 0;
  std::vector<llvm::Function*> todo;
  std::set<llvm::Function*> seen;
  if (llvm::Function* f = m.getFunction(kernel)) todo.push_back(f);
  while (!todo.empty()) {
    llvm::Function* f = todo.back();
    todo.pop_back();
    if (!seen.insert(f).second) continue;
    for (llvm::BasicBlock& bb : *f)
      for (llvm::Instruction& i : bb) {
        auto* call = llvm::dyn_cast<llvm::CallInst>(&i);
        llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
        if (!callee) continue;
        if (!callee->isDeclaration()) {
          todo.push_back(callee);
          continue;
        }
        const llvm::StringRef name = callee->getName();
        if (std::none_of(std::begin(kAsked), std::end(kAsked),
                         [&](const char* a) { return name.contains(a); }))
          continue;
        auto* dim = call->arg_size() == 1
                        ? llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0))
                        : nullptr;
        dims |= dim && dim->getZExtValue() <= 2 ? 1u << dim->getZExtValue() : 7u;
      }
  }
  return dims;
}

}  // namespace

namespace detail {

std::vector<KernelAccessRanges> analyse_module(llvm::Module& m, const std::vector<KernelInfo>& kernels) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cam, mam);
  simplify(m, mam);
  std::vector<KernelAccessRanges> out;
  for (const KernelInfo& k : kernels) {
    llvm::Function* f = m.getFunction(k.name);
    if (!f || f->isDeclaration()) continue;
    auto& se = fam.getResult<llvm::ScalarEvolutionAnalysis>(*f);
    out.push_back(KernelAnalysis(*f, k, se).run());
  }
  return out;
}

}  // namespace detail

AccessAnalysis analyse_access_ranges(std::string_view source, std::string_view options) {
  AccessAnalysis r;
  detail::FrontendOptions fo;
  if (!detail::parse_build_options(options, fo, r.log)) return r;
  // Kept in the native device's cache beside its compiled kernels, under the
  // same key (the preprocessed source, the options, the compiler's identity).
  const std::string path = detail::cache_file("access-ranges", source, fo, options);
  std::vector<unsigned char> bytes;
  if (!path.empty() && detail::read_cache_file(path, bytes) &&
      detail::decode(bytes.data(), bytes.size(), r.kernels)) {
    r.ok = true;
    return r;
  }
  r.kernels.clear();
  llvm::LLVMContext ctx;
  bool refused = false;
  auto m = detail::run_frontend(ctx, source, fo, r.log, refused);
  if (!m) return r;
  auto kernels = detail::collect_kernel_info(*m);
  // Read before the built-ins are linked, while the calls are the source's.
  std::vector<unsigned> block_bound;
  for (const KernelInfo& k : kernels) block_bound.push_back(launch_bound_dims(*m, k.name));
  if (!detail::link_builtins(*m, r.log)) return r;
  r.kernels = detail::analyse_module(*m, kernels);
  for (KernelAccessRanges& k : r.kernels) {
    auto it = std::find_if(kernels.begin(), kernels.end(),
                           [&](const KernelInfo& i) { return i.name == k.kernel; });
    k.launch_bound_dims = it == kernels.end() ? 7u : block_bound[it - kernels.begin()];
  }
  if (!path.empty()) detail::write_cache_file(path, detail::encode(r.kernels));
  r.ok = true;
  return r;
}

// --- at launch ---------------------------------------------------------------

namespace {

using Wide = __int128;

Wide as_unsigned(Wide w) { return w < 0 ? w + (Wide{1} << 64) : w; }

std::vector<Wide> node_values(const KernelAccessRanges& k, const LaunchValues& launch) {
  std::vector<Wide> v(k.nodes.size());
  const NDRange& r = launch.range;
  for (std::size_t i = 0; i < k.nodes.size(); ++i) {
    const Node& n = k.nodes[i];
    auto d = static_cast<std::size_t>(n.value < 0 || n.value > 2 ? 0 : n.value);
    Wide a = n.a < i ? v[n.a] : 0, b = n.b < i ? v[n.b] : 0;
    switch (n.op) {
      case Op::Const: v[i] = n.value; break;
      case Op::LocalSize: v[i] = static_cast<Wide>(r.local_size[d]); break;
      case Op::NumGroups: v[i] = static_cast<Wide>(r.num_groups[d]); break;
      case Op::GlobalOffset: v[i] = static_cast<Wide>(r.global_offset[d]); break;
      case Op::WorkDim: v[i] = r.work_dim; break;
      case Op::Arg: {
        std::uint64_t bits = static_cast<std::size_t>(n.value) < launch.args.size() ? launch.args[n.value] : 0;
        unsigned w = n.width == 0 || n.width > 64 ? 64 : n.width;
        if (w < 64) bits &= (std::uint64_t{1} << w) - 1;
        if (n.is_signed && w < 64 && (bits >> (w - 1)) & 1) bits |= ~((std::uint64_t{1} << w) - 1);
        v[i] = n.is_signed ? static_cast<Wide>(static_cast<std::int64_t>(bits)) : static_cast<Wide>(bits);
        break;
      }
      case Op::Add: v[i] = a + b; break;
      case Op::Mul: v[i] = a * b; break;
      case Op::SMax: v[i] = std::max(a, b); break;
      case Op::SMin: v[i] = std::min(a, b); break;
      // Unsigned: a negative value is its 64-bit pattern, a huge count.
      case Op::UMax: v[i] = std::max(as_unsigned(a), as_unsigned(b)); break;
      case Op::UMin: v[i] = std::min(as_unsigned(a), as_unsigned(b)); break;
      case Op::UDiv: v[i] = b > 0 && a >= 0 ? a / b : 0; break;
      case Op::SDiv: v[i] = b != 0 ? a / b : 0; break;  // C's: toward zero
      case Op::SRem: v[i] = b != 0 ? a % b : 0; break;
      case Op::URem: v[i] = b > 0 && a >= 0 ? a % b : 0; break;
      case Op::AShr: v[i] = b >= 0 && b < 64 ? a >> static_cast<int>(b) : 0; break;  // floor
      case Op::LShr: v[i] = b >= 0 && b < 64 && a >= 0 ? a >> static_cast<int>(b) : 0; break;
    }
  }
  return v;
}

struct Hull {
  bool empty = true;
  Wide lo = 0, hi = 0;
  void add(Wide l, Wide h) {
    if (empty) lo = l, hi = h;
    else lo = std::min(lo, l), hi = std::max(hi, h);
    empty = false;
  }
};

// Each variable's range [lo, hi]; the group along `dim` over [g_lo, g_hi].
struct Box {
  const std::vector<Wide>& values;
  const KernelAccessRanges& k;
  const NDRange& range;
  unsigned dim;
  Wide g_lo, g_hi;
  bool bounds(const RangeVar& v, Wide& lo, Wide& hi) const {
    lo = 0;
    hi = -1;
    switch (v.kind) {
      case RangeVar::Kind::GroupId:
        if (v.index == dim) lo = g_lo, hi = g_hi;
        else hi = static_cast<Wide>(range.num_groups[v.index]) - 1;
        break;
      case RangeVar::Kind::LocalId: hi = static_cast<Wide>(range.local_size[v.index]) - 1; break;
      case RangeVar::Kind::LoopTrip: hi = highest(k.loop_backedges[v.index].c0, k.loop_backedges[v.index].terms); break;
    }
    return lo <= hi;
  }
  // The highest value of c0 + sum c*v over the box (lower than 0 when a
  // variable's range is empty).
  Wide highest(std::uint32_t c0, const std::vector<std::pair<RangeVar, std::uint32_t>>& terms) const {
    Wide top = values[c0];
    for (const auto& [v, c] : terms) {
      Wide vlo = 0, vhi = 0;
      if (!bounds(v, vlo, vhi)) return -1;
      top += std::max(values[c] * vlo, values[c] * vhi);
    }
    return top;
  }
  // Skips the group along `dim` when `skip_group`.
  void site(const AccessSite& s, Hull& h, bool skip_group = false) const {
    Wide lo = values[s.c0], hi = values[s.c0];
    for (const auto& [v, c] : s.terms) {
      if (skip_group && v == RangeVar{RangeVar::Kind::GroupId, dim}) continue;
      Wide vlo = 0, vhi = 0;
      if (!bounds(v, vlo, vhi)) return;  // an empty range: the site runs never
      Wide coef = values[c];
      lo += std::min(coef * vlo, coef * vhi);
      hi += std::max(coef * vlo, coef * vhi);
    }
    h.add(lo, hi + static_cast<Wide>(s.bytes));
  }
};

std::int64_t narrow(Wide w) {
  constexpr Wide lim = std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(std::clamp<Wide>(w, -lim, lim));
}

std::string node_text(const KernelAccessRanges& k, std::uint32_t i) {
  const Node& n = k.nodes[i];
  std::string d = std::to_string(n.value);
  auto bin = [&](const char* op) { return "(" + node_text(k, n.a) + op + node_text(k, n.b) + ")"; };
  auto fn = [&](const char* f) { return std::string(f) + "(" + node_text(k, n.a) + ", " + node_text(k, n.b) + ")"; };
  switch (n.op) {
    case Op::Const: return d;
    case Op::LocalSize: return "local_size" + d;
    case Op::NumGroups: return "num_groups" + d;
    case Op::GlobalOffset: return "global_offset" + d;
    case Op::WorkDim: return "work_dim";
    case Op::Arg: return "arg" + d;
    case Op::Add: return bin(" + ");
    case Op::Mul: return node_text(k, n.a) + "*" + node_text(k, n.b);
    case Op::SMax: return fn("smax");
    case Op::SMin: return fn("smin");
    case Op::UMax: return fn("umax");
    case Op::UMin: return fn("umin");
    case Op::UDiv: return bin(" /u ");
    case Op::SDiv: return bin(" / ");
    case Op::SRem: return bin(" % ");
    case Op::URem: return bin(" %u ");
    case Op::AShr: return bin(" >> ");
    case Op::LShr: return bin(" >>u ");
  }
  return "?";
}

std::string form_text(const KernelAccessRanges& k, std::uint32_t c0,
                      const std::vector<std::pair<RangeVar, std::uint32_t>>& terms) {
  std::string sum = terms.empty() || k.nodes[c0].op != Op::Const || k.nodes[c0].value != 0
                        ? node_text(k, c0) : "";
  for (const auto& [v, c] : terms) {
    const char* name = v.kind == RangeVar::Kind::GroupId ? "group" : v.kind == RangeVar::Kind::LocalId ? "lid" : "k";
    sum += (sum.empty() ? "" : " + ") + node_text(k, c) + "*" + name + std::to_string(v.index);
  }
  return sum;
}

std::string access_text(const KernelAccessRanges& k, const ArgAccess& a) {
  if (a.kind == ArgAccess::Kind::None) return "none";
  if (a.kind == ArgAccess::Kind::Whole) return "whole buffer (" + a.whole_reason + ")";
  std::string out;
  for (const AccessSite& s : a.sites) {
    if (!out.empty()) out += "; ";
    out += form_text(k, s.c0, s.terms) + " [" + std::to_string(s.bytes) + "B]";
  }
  return out;
}

}  // namespace

ByteRange evaluate(const KernelAccessRanges& k, const ArgAccess& access, const LaunchValues& launch,
                   std::size_t g0, std::size_t g1, unsigned dim) {
  if (access.kind == ArgAccess::Kind::Whole) return ByteRange{true, 0, 0};
  if (access.kind == ArgAccess::Kind::None || g1 <= g0) return {};
  auto values = node_values(k, launch);
  Box box{values, k, launch.range, dim, static_cast<Wide>(g0), static_cast<Wide>(g1) - 1};
  Hull h;
  for (const AccessSite& s : access.sites) box.site(s, h);
  if (h.empty) return {};
  return ByteRange{false, narrow(h.lo), narrow(h.hi)};
}

SplitCheck check_split(const KernelAccessRanges& k, const LaunchValues& launch, unsigned dim) {
  if (dim > 2) return {false, "no such dimension"};
  const SplitVerdict& v = k.split[dim];
  if (!v.possible) return {false, v.reason};
  if (launch.range.num_groups[dim] <= 1) return {true, {}};
  auto values = node_values(k, launch);
  const RangeVar group{RangeVar::Kind::GroupId, dim};
  for (const ArgAccessRanges& a : k.args) {
    // Group g's writes lie in [footprint.lo, footprint.hi) + stride * g: with
    // the footprint no wider than |stride|, no two groups share a byte, so
    // neither do blocks of them. The footprint leaves the group's own term
    // out but takes loop counts at their highest over every group (a count
    // may depend on the group).
    std::optional<Wide> stride;
    Hull footprint;
    Box box{values, k, launch.range, dim, 0, static_cast<Wide>(launch.range.num_groups[dim]) - 1};
    for (const AccessSite& s : a.writes.sites) {
      Hull one;
      box.site(s, one, true);
      if (one.empty) continue;  // a site in a loop that runs never
      Wide c = 0;
      for (const auto& [var, coef] : s.terms)
        if (var == group) c = values[coef];
      if (stride && *stride != c)
        return {false, "the writes to '" + a.name + "' advance by different strides per group along dimension " +
                           std::to_string(dim)};
      stride = c;
      footprint.add(one.lo, one.hi);
    }
    if (!stride) continue;
    Wide step = *stride < 0 ? -*stride : *stride;
    if (step == 0)
      return {false, "the writes to '" + a.name + "' do not move with the group along dimension " +
                         std::to_string(dim)};
    if (footprint.hi - footprint.lo > step)
      return {false, "one group's writes to '" + a.name + "' span " + std::to_string(narrow(footprint.hi - footprint.lo)) +
                         " bytes, more than the " + std::to_string(narrow(step)) +
                         " bytes between groups along dimension " + std::to_string(dim)};
  }
  return {true, {}};
}

std::string describe_access_ranges(const KernelAccessRanges& k) {
  std::string out = "kernel " + k.kernel + "\n";
  if (k.launch_bound_dims)
    out += "  asks for group ids, group counts, global sizes or offsets along dimensions (mask) " +
           std::to_string(k.launch_bound_dims) + "\n";
  for (std::size_t i = 0; i < k.loop_backedges.size(); ++i)
    out += "  loop k" + std::to_string(i) + " in [0, " +
           form_text(k, k.loop_backedges[i].c0, k.loop_backedges[i].terms) + "]\n";
  for (const ArgAccessRanges& a : k.args) {
    out += "  arg" + std::to_string(a.arg) + " '" + a.name + "'" + (a.atomics ? " (atomics)" : "") + "\n";
    out += "    reads:  " + access_text(k, a.reads) + "\n";
    out += "    writes: " + access_text(k, a.writes) + "\n";
  }
  for (unsigned d = 0; d < 3; ++d) {
    const SplitVerdict& v = k.split[d];
    out += "  split dim " + std::to_string(d) + ": ";
    if (!v.possible) {
      out += "no: " + v.reason + "\n";
      continue;
    }
    out += "yes, if the launch's per-group writes are disjoint";
    for (const auto& [x, y] : v.distinct_buffers)
      out += ", arg" + std::to_string(x) + " != arg" + std::to_string(y);
    out += "\n";
  }
  return out;
}

}  // namespace parasol::kernels
