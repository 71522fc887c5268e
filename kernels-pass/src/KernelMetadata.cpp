// KernelInfo from the kernel_arg_* metadata Clang attaches to kernels.
#include "Internal.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Metadata.h>

namespace parasol::kernels::detail {

namespace {

std::string md_string(const llvm::MDNode* n, unsigned i) {
  if (!n || i >= n->getNumOperands()) return {};
  if (auto* s = llvm::dyn_cast_or_null<llvm::MDString>(n->getOperand(i))) return s->getString().str();
  return {};
}

uint64_t md_int(const llvm::MDNode* n, unsigned i) {
  if (!n || i >= n->getNumOperands()) return 0;
  if (auto* c = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(n->getOperand(i)))
    return c->getZExtValue();
  return 0;
}

bool is_image(const std::string& t) { return t.rfind("image", 0) == 0; }

// The OpenCL C name of a vec_type_hint's type ("float4", "uchar2", "int"):
// Clang records it as an undef value of the LLVM type, and whether it is a
// signed integer type. Empty for a type OpenCL C has no name for.
std::string hint_type_name(const llvm::MDNode* hint) {
  auto* value = hint && hint->getNumOperands() > 0
                    ? llvm::mdconst::dyn_extract_or_null<llvm::Constant>(hint->getOperand(0))
                    : nullptr;
  if (!value) return {};
  llvm::Type* t = value->getType();
  unsigned width = 0;
  if (auto* v = llvm::dyn_cast<llvm::FixedVectorType>(t)) {
    width = v->getNumElements();
    t = v->getElementType();
  }
  std::string name;
  if (t->isHalfTy()) name = "half";
  else if (t->isFloatTy()) name = "float";
  else if (t->isDoubleTy()) name = "double";
  else if (t->isIntegerTy(8)) name = "char";
  else if (t->isIntegerTy(16)) name = "short";
  else if (t->isIntegerTy(32)) name = "int";
  else if (t->isIntegerTy(64)) name = "long";
  else return {};
  if (t->isIntegerTy() && md_int(hint, 1) == 0) name = "u" + name;
  return width ? name + std::to_string(width) : name;
}

}  // namespace

std::vector<KernelInfo> collect_kernel_info(const llvm::Module& m) {
  std::vector<KernelInfo> out;
  const llvm::DataLayout& dl = m.getDataLayout();
  for (const llvm::Function& f : m) {
    if (f.isDeclaration() || f.getCallingConv() != llvm::CallingConv::SPIR_KERNEL) continue;
    KernelInfo k;
    k.name = f.getName().str();
    auto* as = f.getMetadata("kernel_arg_addr_space");
    auto* access = f.getMetadata("kernel_arg_access_qual");
    auto* type = f.getMetadata("kernel_arg_type");
    auto* qual = f.getMetadata("kernel_arg_type_qual");
    auto* names = f.getMetadata("kernel_arg_name");
    for (unsigned i = 0; i < f.arg_size(); ++i) {
      ArgInfo a;
      a.name = md_string(names, i);
      a.type_name = md_string(type, i);
      switch (md_int(as, i)) {
        case 1: a.address = CL_KERNEL_ARG_ADDRESS_GLOBAL; a.kind = ArgKind::GlobalPointer; break;
        case 2: a.address = CL_KERNEL_ARG_ADDRESS_CONSTANT; a.kind = ArgKind::ConstantPointer; break;
        case 3: a.address = CL_KERNEL_ARG_ADDRESS_LOCAL; a.kind = ArgKind::LocalPointer; break;
        default: a.address = CL_KERNEL_ARG_ADDRESS_PRIVATE; a.kind = ArgKind::Value; break;
      }
      if (a.type_name == "sampler_t") a.kind = ArgKind::Sampler;
      if (is_image(a.type_name)) {
        a.kind = ArgKind::Image;
        a.address = CL_KERNEL_ARG_ADDRESS_GLOBAL;
      }
      std::string acc = md_string(access, i);
      a.access = acc == "read_only"    ? CL_KERNEL_ARG_ACCESS_READ_ONLY
                 : acc == "write_only" ? CL_KERNEL_ARG_ACCESS_WRITE_ONLY
                 : acc == "read_write" ? CL_KERNEL_ARG_ACCESS_READ_WRITE
                                       : CL_KERNEL_ARG_ACCESS_NONE;
      std::string q = md_string(qual, i);
      a.type_qualifier = CL_KERNEL_ARG_TYPE_NONE;
      if (q.find("const") != std::string::npos) a.type_qualifier |= CL_KERNEL_ARG_TYPE_CONST;
      if (q.find("restrict") != std::string::npos) a.type_qualifier |= CL_KERNEL_ARG_TYPE_RESTRICT;
      if (q.find("volatile") != std::string::npos) a.type_qualifier |= CL_KERNEL_ARG_TYPE_VOLATILE;
      if (q.find("pipe") != std::string::npos) a.type_qualifier |= CL_KERNEL_ARG_TYPE_PIPE;
      const llvm::Argument* arg = f.getArg(i);
      if (arg->getType()->isPointerTy() && !arg->hasByValAttr())
        a.size = sizeof(void*);
      else if (arg->hasByValAttr())
        a.size = dl.getTypeAllocSize(arg->getParamByValType());
      else
        a.size = dl.getTypeAllocSize(arg->getType());
      k.args.push_back(std::move(a));
    }
    // CL_KERNEL_ATTRIBUTES: each attribute as written inside
    // __attribute__((...)), without spaces, space delimited. (The metadata
    // does not keep the declaration's order: this order is fixed.)
    std::string attrs;
    // Appended part by part (GCC 12 reports -Wrestrict false positives on
    // chains of std::string operator+ at -O3: its bug 105329).
    auto add = [&attrs](const char* name, const std::string& rest) {
      if (!attrs.empty()) attrs += ' ';
      attrs += name;
      attrs += rest;
    };
    auto sizes = [](const llvm::MDNode* n) {
      std::string s = "(";
      for (unsigned d = 0; d < 3; ++d) {
        if (d) s += ',';
        s += std::to_string(md_int(n, d));
      }
      s += ')';
      return s;
    };
    if (auto* r = f.getMetadata("reqd_work_group_size")) {
      for (unsigned d = 0; d < 3; ++d) k.reqd_work_group_size[d] = md_int(r, d);
      add("reqd_work_group_size", sizes(r));
    }
    if (auto* h = f.getMetadata("work_group_size_hint")) add("work_group_size_hint", sizes(h));
    if (std::string t = hint_type_name(f.getMetadata("vec_type_hint")); !t.empty()) {
      std::string hint = "(";
      hint += t;
      hint += ')';
      add("vec_type_hint", hint);
    }
    k.attributes = attrs;
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace parasol::kernels::detail
