// The OpenCL C built-in library, embedded as bitcode at build time and
// linked lazily: only the functions a program uses are materialised.
#include "Internal.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

extern "C" const char parasol_builtins_core[], parasol_builtins_core_end[];
extern "C" const char parasol_builtins_convert[], parasol_builtins_convert_end[];

namespace parasol::kernels::detail {

namespace {

bool link_one(llvm::Module& m, const char* begin, const char* end, const char* name, std::string& log) {
  // The embedded blob has a trailing NUL (for the header blob's sake).
  auto buf = llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(begin, end - begin - 1), name, false);
  auto lib = llvm::getOwningLazyBitcodeModule(std::move(buf), m.getContext());
  if (!lib) {
    log += "error: corrupt built-in library: " + llvm::toString(lib.takeError()) + "\n";
    return false;
  }
  (*lib)->setTargetTriple(m.getTargetTriple());
  (*lib)->setDataLayout(m.getDataLayout());
  if (llvm::Linker::linkModules(m, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded)) {
    log += "error: linking the built-in library failed\n";
    return false;
  }
  return true;
}

bool needs(const llvm::Module& m, llvm::StringRef fragment) {
  for (const llvm::Function& f : m)
    if (f.isDeclaration() && f.getName().contains(fragment)) return true;
  return false;
}

}  // namespace

bool link_builtins(llvm::Module& m, std::string& log) {
  if (needs(m, "convert_") &&
      !link_one(m, parasol_builtins_convert, parasol_builtins_convert_end, "builtins-convert", log))
    return false;
  return link_one(m, parasol_builtins_core, parasol_builtins_core_end, "builtins-core", log);
}

}  // namespace parasol::kernels::detail
