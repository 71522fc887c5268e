// From linked IR to host machine code: inline, lower work-groups, O3, emit.
#include "Internal.h"
#include "WorkGroupLowering.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/IPO/GlobalDCE.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>

#include <mutex>

#include <dlfcn.h>

namespace parasol::kernels::detail {

const HostTarget& host_target() {
  static const HostTarget t = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    // Work-item loops run local-size iterations (tens to hundreds): a scalar
    // remainder is cheap, a vectorised epilogue mostly costs compile time.
    // (LLVM is private to this library, so its options are ours to set.)
    const char* argv[] = {"parasol-kernels", "-enable-epilogue-vectorization=false"};
    llvm::cl::ParseCommandLineOptions(2, argv, "", nullptr, nullptr);
    HostTarget h;
    h.triple = "x86_64-unknown-linux-gnu";
    h.cpu = llvm::sys::getHostCPUName().str();
    std::string features;
    for (const auto& [name, on] : llvm::sys::getHostCPUFeatures()) {
      if (!features.empty()) features += ",";
      features += on ? '+' : '-';  // not a "+" + string: GCC 12's false -Wrestrict (bug 105329)
      features += name.str();
    }
    h.features = features;
    return h;
  }();
  return t;
}

std::unique_ptr<llvm::TargetMachine> create_target_machine(bool optimise) {
  const HostTarget& h = host_target();
  std::string err;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(h.triple, err);
  if (!t) return nullptr;
  llvm::TargetOptions to;
  return std::unique_ptr<llvm::TargetMachine>(t->createTargetMachine(
      h.triple, h.cpu, h.features, to, llvm::Reloc::PIC_, llvm::CodeModel::Small,
      // O2 instruction selection: O3 adds compile time, not kernel speed.
      optimise ? llvm::CodeGenOptLevel::Default : llvm::CodeGenOptLevel::None));
}

namespace {

// Everything but the kernels is private to the program and inlined into them
// (barriers must end up in the kernel body); all code targets the host CPU.
void prepare(llvm::Module& m, llvm::TargetMachine& tm) {
  const HostTarget& h = host_target();
  m.setDataLayout(tm.createDataLayout());
  m.setTargetTriple(h.triple);
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", h.cpu);
    f.addFnAttr("target-features", h.features);
    f.removeFnAttr("min-legal-vector-width");
    f.removeFnAttr(llvm::Attribute::OptimizeNone);
    f.removeFnAttr(llvm::Attribute::NoInline);
    // Kernels too: one kernel may call another like a function.
    f.addFnAttr(llvm::Attribute::AlwaysInline);
    if (f.getCallingConv() != llvm::CallingConv::SPIR_KERNEL)
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
}

// OpenCL C's printf returns 0 when it printed and -1 when it did not; the
// host's printf, which the kernels call, returns a count of characters.
void opencl_printf_results(llvm::Module& m) {
  llvm::Function* printf = m.getFunction("printf");
  if (!printf) return;
  for (llvm::User* user : llvm::make_early_inc_range(printf->users())) {
    auto* call = llvm::dyn_cast<llvm::CallInst>(user);
    if (!call || call->use_empty() || !call->getType()->isIntegerTy(32)) continue;
    llvm::IRBuilder<> b(call->getNextNode());
    llvm::Value* failed = b.CreateICmpSLT(call, b.getInt32(0));
    llvm::Value* result = b.CreateSelect(failed, b.getInt32(-1), b.getInt32(0));
    call->replaceUsesWithIf(result, [&](llvm::Use& use) { return use.getUser() != failed; });
  }
}

// Calls that nothing in the program or the process can satisfy.
bool check_unresolved(const llvm::Module& m, std::string& log) {
  bool ok = true;
  for (const llvm::Function& f : m) {
    if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty()) continue;
    llvm::StringRef n = f.getName();
    // The JIT resolves C names (libm, printf) in the process, as dlsym does.
    bool host = !n.starts_with("_Z") && !n.starts_with("__parasol") &&
                ::dlsym(RTLD_DEFAULT, n.str().c_str()) != nullptr;
    if (host) continue;
    log += "error: undefined function '" + llvm::demangle(n.str()) +
           "' (not defined in the program, not a built-in this device provides)\n";
    ok = false;
  }
  return ok;
}

}  // namespace

bool optimise_module(llvm::Module& m, llvm::TargetMachine& tm, bool opt_disable, std::string& log) {
  prepare(m, tm);
  opencl_printf_results(m);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  llvm::PassBuilder pb(&tm, pto);
  // glibc's vector math (libmvec) lets the vectoriser keep sin/exp/... in
  // vectorised work-item loops.
  llvm::Triple triple(m.getTargetTriple());
  auto tlii = std::make_unique<llvm::TargetLibraryInfoImpl>(triple);
  // Only if libmvec can be loaded: the JIT resolves its symbols in the process.
  static const bool have_libmvec = ::dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL) != nullptr;
  if (have_libmvec)
    tlii->addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
  // A kernel's printf is OpenCL C's (its format and %s strings are
  // __constant, its conversions include vectors), not the C library's that
  // LLVM would rewrite into puts or putchar calls taking its pointers.
  tlii->setUnavailable(llvm::LibFunc_printf);
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(*tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cam, mam);

  {
    // Stage 1: one body per kernel, cleaned up enough for the lowering.
    llvm::ModulePassManager mpm;
    mpm.addPass(llvm::AlwaysInlinerPass());
    mpm.addPass(llvm::GlobalDCEPass());
    llvm::FunctionPassManager fpm;
    fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
    fpm.addPass(llvm::EarlyCSEPass());
    fpm.addPass(llvm::InstCombinePass());
    fpm.addPass(llvm::SimplifyCFGPass());
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
    mpm.addPass(WorkGroupLoweringPass());
    mpm.addPass(llvm::GlobalDCEPass());
    mpm.run(m, mam);
  }
  if (llvm::verifyModule(m, &llvm::errs())) {
    log += "error: internal compiler error: invalid IR after work-group lowering\n";
    return false;
  }
  if (!check_unresolved(m, log)) return false;
  // Stage 2: the host's O3 (or O0 for -cl-opt-disable).
  llvm::ModulePassManager mpm = opt_disable ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                            : pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(m, mam);
  return true;
}

bool emit_object(llvm::Module& m, llvm::TargetMachine& tm, std::vector<unsigned char>& obj,
                 std::string& log) {
  llvm::SmallVector<char, 0> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    log += "error: the target cannot emit object files\n";
    return false;
  }
  pm.run(m);
  obj.assign(buf.begin(), buf.end());
  return true;
}

}  // namespace parasol::kernels::detail

// Debian's libclangCodeGen.a is built to register Polly's passes, whose
// static library is not shipped. Clang runs no LLVM passes for us
// (-disable-llvm-passes), so an empty registration satisfies it.
#include <llvm/Passes/PassPlugin.h>
llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "polly-unavailable", "0", [](llvm::PassBuilder&) {}};
}
