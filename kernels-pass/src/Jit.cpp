// One process-wide ORC LLJIT; each program is a JITDylib holding its object.
#include "Internal.h"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>

#include <atomic>
#include <mutex>

namespace parasol::kernels::detail {

namespace {

llvm::orc::LLJIT* the_jit(std::string& log) {
  static std::once_flag once;
  // Never destroyed: at exit, static destructors run before the runtime's
  // atexit shutdown (registered earlier) has waited for the kernels still
  // running, and programs released late still remove their JITDylib. A
  // destroyed JIT would unmap the code of a kernel in flight.
  static llvm::orc::LLJIT* jit = nullptr;
  static std::string error;
  std::call_once(once, [] {
    host_target();  // targets initialised
    auto j = llvm::orc::LLJITBuilder().create();
    if (!j) {
      error = llvm::toString(j.takeError());
      return;
    }
    jit = j->release();
    // Failures surface through lookups, into the build log; not on stderr.
    jit->getExecutionSession().setErrorReporter([](llvm::Error e) { llvm::consumeError(std::move(e)); });
  });
  if (!jit) log += "error: cannot start the JIT: " + error + "\n";
  return jit;
}

class Image : public JitImage {
 public:
  Image(llvm::orc::LLJIT& jit, llvm::orc::JITDylib& jd) : jit_(jit), jd_(jd) {}
  ~Image() override {
    if (auto err = jit_.getExecutionSession().removeJITDylib(jd_)) llvm::consumeError(std::move(err));
  }
  void* lookup(const std::string& symbol, std::string* error) override {
    auto addr = jit_.lookup(jd_, symbol);
    if (!addr) {
      std::string msg = llvm::toString(addr.takeError());
      if (error) *error += "error: " + msg + "\n";
      return nullptr;
    }
    return addr->toPtr<void*>();
  }

 private:
  llvm::orc::LLJIT& jit_;
  llvm::orc::JITDylib& jd_;
};

}  // namespace

std::unique_ptr<JitImage> jit_load(const std::vector<unsigned char>& object, std::string& log) {
  llvm::orc::LLJIT* jit = the_jit(log);
  if (!jit) return nullptr;
  static std::atomic<unsigned long> counter{0};
  auto jd = jit->getExecutionSession().createJITDylib("program." + std::to_string(counter++));
  if (!jd) {
    log += "error: " + llvm::toString(jd.takeError()) + "\n";
    return nullptr;
  }
  // Host symbols (libm, printf) through the JIT's process-symbols dylib.
  jd->setLinkOrder(jit->defaultLinkOrder(), false);
  auto buf = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char*>(object.data()), object.size()), "program.o");
  if (auto err = jit->addObjectFile(*jd, std::move(buf))) {
    log += "error: " + llvm::toString(std::move(err)) + "\n";
    if (auto e2 = jit->getExecutionSession().removeJITDylib(*jd)) llvm::consumeError(std::move(e2));
    return nullptr;
  }
  return std::make_unique<Image>(*jit, *jd);
}

}  // namespace parasol::kernels::detail
