// The OpenCL C built-in library, embedded as bitcode modules at build time.
// A program links only the modules defining what it calls (transitively),
// and from those only the functions it needs (lazy materialisation).
#include "Internal.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include <mutex>
#include <set>
#include <unordered_map>

#define PARASOL_BUILTIN(sym) extern "C" const char sym[], sym##_end[];
#include "builtin_table.inc"
#undef PARASOL_BUILTIN

namespace parasol::kernels::detail {

namespace {

struct Blob {
  const char* name;
  const char* begin;
  const char* end;
  // The embedded blob has a trailing NUL (for the header blob's sake).
  llvm::StringRef bytes() const { return llvm::StringRef(begin, end - begin - 1); }
};

const std::vector<Blob>& blobs() {
  static const std::vector<Blob> all = {
#define PARASOL_BUILTIN(sym) {#sym, sym, sym##_end},
#include "builtin_table.inc"
#undef PARASOL_BUILTIN
  };
  return all;
}

// Which module defines each built-in; read once per process.
const std::unordered_map<std::string, unsigned>& definitions() {
  static std::unordered_map<std::string, unsigned> index;
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::LLVMContext ctx;
    for (unsigned i = 0; i < blobs().size(); ++i) {
      auto m = llvm::getLazyBitcodeModule(llvm::MemoryBufferRef(blobs()[i].bytes(), blobs()[i].name), ctx);
      if (!m) {
        llvm::consumeError(m.takeError());
        continue;
      }
      for (const llvm::Function& f : **m)
        if (!f.isDeclaration() && !f.hasLocalLinkage()) index.emplace(f.getName().str(), i);
    }
  });
  return index;
}

bool link_one(llvm::Module& m, const Blob& blob, std::string& log) {
  auto buf = llvm::MemoryBuffer::getMemBuffer(blob.bytes(), blob.name, false);
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

}  // namespace

bool link_builtins(llvm::Module& m, std::string& log) {
  const auto& index = definitions();
  // Built-ins call built-ins of other modules (possibly of one linked
  // before): repeat until no declared function has a definition to link.
  for (int round = 0; round < 16; ++round) {
    std::set<unsigned> wanted;
    for (const llvm::Function& f : m)
      if (f.isDeclaration())
        if (auto it = index.find(f.getName().str()); it != index.end()) wanted.insert(it->second);
    if (wanted.empty()) return true;
    for (unsigned i : wanted)
      if (!link_one(m, blobs()[i], log)) return false;
  }
  log += "error: built-in library references do not settle\n";
  return false;
}

}  // namespace parasol::kernels::detail
