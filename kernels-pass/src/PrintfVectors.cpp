// printf's vector conversions (OpenCL C 6.15.14.2) on the host's printf.
//
// A kernel's printf is the host's, which has no vector conversion. A call
// whose format is a constant is rewritten before code generation: each
// vector conversion "%[flags][width][.precision]vN<length><conversion>"
// becomes N scalar conversions with the same flags, width and precision,
// separated by commas (the specification's output), and its vector argument
// becomes its N elements, promoted as C's variadic calls promote scalars.
//
// The vector argument arrives as the x86-64 calling convention lowered it:
// the vector itself, an integer or a double of the same bits (char2, float2),
// or a pointer to a byval copy (float8, int16). The length modifier gives
// the element's size (hh 8 bits, h 16, hl 32, l 64), so the bits are read
// back as N elements of that size whatever the lowering made of them.
#include "Internal.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <string>
#include <vector>

namespace parasol::kernels::detail {
namespace {

// One conversion of a format, as written.
struct Conversion {
  std::size_t begin = 0, end = 0;  // the bytes of "%...c" in the format
  std::string flags_width_precision;
  unsigned vector = 0;  // N of "vN"; 0: a scalar conversion
  std::string length;   // hh, h, hl, l, or other scalar length modifiers
  char conversion = 0;
  bool star = false;  // a width or precision taken from the arguments
};

// The conversions of a format, in order ("%%" is none); false when one is
// malformed (the format is then left as it is).
bool parse(llvm::StringRef f, std::vector<Conversion>& out) {
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') continue;
    if (i + 1 < f.size() && f[i + 1] == '%') {
      ++i;
      continue;
    }
    Conversion c;
    c.begin = i;
    std::size_t j = i + 1;
    while (j < f.size() && llvm::StringRef("-+ #0123456789.*").contains(f[j])) {
      c.star |= f[j] == '*';
      c.flags_width_precision += f[j++];
    }
    if (j < f.size() && f[j] == 'v') {
      ++j;
      while (j < f.size() && f[j] >= '0' && f[j] <= '9') c.vector = c.vector * 10 + unsigned(f[j++] - '0');
      if (c.vector == 0) return false;
    }
    while (j < f.size() && llvm::StringRef("hlLjztq").contains(f[j])) c.length += f[j++];
    if (j >= f.size()) return false;
    c.conversion = f[j];
    c.end = j + 1;
    out.push_back(c);
    i = j;
  }
  return true;
}

bool is_float_conversion(char c) { return llvm::StringRef("fFeEgGaA").contains(c); }

// The element type of a vector conversion, from its length modifier and
// conversion; null for a combination the specification does not define.
llvm::Type* element_type(llvm::LLVMContext& ctx, const Conversion& c) {
  const bool fp = is_float_conversion(c.conversion);
  if (!fp && !llvm::StringRef("diouxXc").contains(c.conversion)) return nullptr;
  if (c.length == "hh") return fp ? nullptr : llvm::Type::getInt8Ty(ctx);
  if (c.length == "h") return fp ? llvm::Type::getHalfTy(ctx) : llvm::Type::getInt16Ty(ctx);
  if (c.length == "hl") return fp ? llvm::Type::getFloatTy(ctx) : llvm::Type::getInt32Ty(ctx);
  if (c.length == "l") return fp ? llvm::Type::getDoubleTy(ctx) : llvm::Type::getInt64Ty(ctx);
  return nullptr;
}

// The elements of a vector argument (operand `index` of call), promoted as
// a variadic call promotes scalars; false when its bits hold fewer than N.
bool vector_elements(llvm::CallInst& call, unsigned index, const Conversion& c, llvm::Type* element,
                     std::vector<llvm::Value*>& out) {
  llvm::IRBuilder<> b(&call);
  const llvm::DataLayout& dl = call.getModule()->getDataLayout();
  llvm::Value* v = call.getArgOperand(index);
  if (llvm::Type* byval = call.getParamByValType(index)) v = b.CreateLoad(byval, v);
  if (v->getType()->isPointerTy()) return false;
  const std::uint64_t bits = dl.getTypeSizeInBits(v->getType());
  const std::uint64_t element_bits = dl.getTypeSizeInBits(element);
  if (bits % element_bits || bits / element_bits < c.vector) return false;
  auto* as_vector = llvm::FixedVectorType::get(element, static_cast<unsigned>(bits / element_bits));
  v = b.CreateBitCast(v, as_vector);
  const bool is_signed = c.conversion == 'd' || c.conversion == 'i';
  for (unsigned i = 0; i < c.vector; ++i) {
    llvm::Value* e = b.CreateExtractElement(v, b.getInt32(i));
    if (element->isFloatingPointTy()) {
      if (!element->isDoubleTy()) e = b.CreateFPExt(e, b.getDoubleTy());
    } else if (element_bits < 32) {
      e = is_signed ? b.CreateSExt(e, b.getInt32Ty()) : b.CreateZExt(e, b.getInt32Ty());
    }
    out.push_back(e);
  }
  return true;
}

// One element's scalar conversion: the vector's flags, width and precision,
// and the host printf's length for the promoted element.
std::string scalar_conversion(const Conversion& c) {
  std::string length;
  if (!is_float_conversion(c.conversion)) {
    if (c.length == "hh" || c.length == "h") length = c.length;  // printed at the element's size
    if (c.length == "l") length = "l";
  }
  return "%" + c.flags_width_precision + length + c.conversion;
}

// Rewrites one call; false, with a line in log, where it cannot.
bool expand(llvm::CallInst& call, llvm::GlobalVariable& format_global, llvm::StringRef format,
            std::string& log) {
  std::vector<Conversion> conversions;
  const std::string where = "error: in '" + call.getFunction()->getName().str() + "': printf(\"" +
                            llvm::StringRef(format).str() + "\"): ";
  if (!parse(format, conversions)) {
    log += where + "a conversion is malformed\n";
    return false;
  }
  std::string new_format;
  std::vector<llvm::Value*> args{call.getArgOperand(0)};
  std::size_t copied = 0;  // format bytes copied
  unsigned arg = 1, next = 1;  // the conversion's operand; the first operand not copied
  for (const Conversion& c : conversions) {
    if (c.vector == 0) {
      if (c.star) arg += static_cast<unsigned>(std::count(c.flags_width_precision.begin(),
                                                          c.flags_width_precision.end(), '*'));
      ++arg;
      continue;
    }
    if (c.star) {
      log += where + "a vector conversion takes no '*' width or precision\n";
      return false;
    }
    llvm::Type* element = element_type(call.getContext(), c);
    if (!element) {
      log += where + "a vector conversion needs the length modifier hh, h, hl or l of its elements\n";
      return false;
    }
    if (arg >= call.arg_size()) {
      log += where + "a vector conversion has no argument\n";
      return false;
    }
    // The arguments before this one as they are.
    for (; next < arg; ++next) args.push_back(call.getArgOperand(next));
    std::vector<llvm::Value*> elements;
    if (!vector_elements(call, arg, c, element, elements)) {
      log += where + "argument " + std::to_string(arg) + " is not a vector of " +
             std::to_string(c.vector) + " such elements\n";
      return false;
    }
    args.insert(args.end(), elements.begin(), elements.end());
    next = ++arg;
    new_format += format.substr(copied, c.begin - copied).str();
    const std::string one = scalar_conversion(c);
    for (unsigned i = 0; i < c.vector; ++i) new_format += (i ? "," : "") + one;
    copied = c.end;
  }
  new_format += format.substr(copied).str();
  for (; next < call.arg_size(); ++next) args.push_back(call.getArgOperand(next));

  llvm::Module& m = *call.getModule();
  auto* init = llvm::ConstantDataArray::getString(m.getContext(), new_format, true);
  auto* gv = new llvm::GlobalVariable(m, init->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                      init, format_global.getName() + ".scalars", nullptr,
                                      llvm::GlobalValue::NotThreadLocal,
                                      format_global.getAddressSpace());
  gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  llvm::Constant* pointer = gv;
  if (pointer->getType() != call.getArgOperand(0)->getType())
    pointer = llvm::ConstantExpr::getPointerBitCastOrAddrSpaceCast(gv, call.getArgOperand(0)->getType());
  args[0] = pointer;
  llvm::CallInst* scalars =
      llvm::CallInst::Create(call.getFunctionType(), call.getCalledOperand(), args, "", &call);
  scalars->setCallingConv(call.getCallingConv());
  call.replaceAllUsesWith(scalars);
  call.eraseFromParent();
  return true;
}

}  // namespace

bool expand_printf_vectors(llvm::Module& m, std::string& log) {
  struct Site {
    llvm::CallInst* call;
    llvm::GlobalVariable* format;
    std::string text;
  };
  std::vector<Site> sites;
  for (llvm::Function& f : m)
    for (llvm::Instruction& i : llvm::instructions(f)) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(&i);
      llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
      if (!callee || callee->getName() != "printf" || call->arg_size() == 0) continue;
      auto* gv = llvm::dyn_cast<llvm::GlobalVariable>(call->getArgOperand(0)->stripPointerCasts());
      auto* data = gv && gv->hasInitializer()
                       ? llvm::dyn_cast<llvm::ConstantDataSequential>(gv->getInitializer())
                       : nullptr;
      if (!data || !data->isCString()) continue;
      std::vector<Conversion> conversions;
      const llvm::StringRef text = data->getAsCString();
      if (!parse(text, conversions)) continue;  // printed as the host's printf reads it
      for (const Conversion& c : conversions)
        if (c.vector) {
          sites.push_back({call, gv, text.str()});
          break;
        }
    }
  bool ok = true;
  for (Site& s : sites) ok &= expand(*s.call, *s.format, s.text, log);
  return ok;
}

}  // namespace parasol::kernels::detail
