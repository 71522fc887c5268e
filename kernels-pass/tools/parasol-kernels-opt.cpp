// parasol-kernels-opt: runs the work-group lowering pass on a .ll file and
// prints the result, for FileCheck tests; or prints the access ranges of
// each kernel of an OpenCL C file (access_ranges.h).
//   parasol-kernels-opt input.ll [--O3=<cpu>]
// --O3=<cpu> follows the lowering with LLVM's O3 for that x86-64 CPU (e.g.
// x86-64-v4: AVX-512), so a test can see what the vectoriser makes of it.
//   parasol-kernels-opt --access-ranges input.cl [build options...]
#include "WorkGroupLowering.h"
#include "parasol/kernels/access_ranges.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {
int print_access_ranges(int argc, char** argv) {
  if (argc < 3) {
    llvm::errs() << "usage: parasol-kernels-opt --access-ranges input.cl [build options...]\n";
    return 2;
  }
  std::ifstream in(argv[2]);
  if (!in) {
    llvm::errs() << "cannot read " << argv[2] << "\n";
    return 1;
  }
  std::stringstream source;
  source << in.rdbuf();
  std::string options;
  for (int i = 3; i < argc; ++i) options += std::string(i > 3 ? " " : "") + argv[i];
  auto a = parasol::kernels::analyse_access_ranges(source.str(), options);
  std::cerr << a.log;
  if (!a.ok) return 1;
  for (const auto& k : a.kernels) std::cout << parasol::kernels::describe_access_ranges(k);
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--access-ranges") == 0) return print_access_ranges(argc, argv);
  const char* input = nullptr;
  const char* o3_cpu = nullptr;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--O3=", 5) == 0)
      o3_cpu = argv[i] + 5;
    else if (argv[i][0] != '-' || std::strcmp(argv[i], "-") == 0)
      input = argv[i];
  if (!input) {
    llvm::errs() << "usage: parasol-kernels-opt input.ll\n";
    return 2;
  }
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic err;
  auto m = llvm::parseIRFile(input, err, ctx);
  if (!m) {
    err.print(argv[0], llvm::errs());
    return 1;
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cam;
  llvm::ModuleAnalysisManager mam;
  std::unique_ptr<llvm::TargetMachine> tm;
  if (o3_cpu) {
    llvm::InitializeNativeTarget();
    const std::string triple = "x86_64-unknown-linux-gnu";
    std::string err;
    const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, err);
    if (!t) {
      llvm::errs() << err << "\n";
      return 1;
    }
    tm.reset(t->createTargetMachine(triple, o3_cpu, "", llvm::TargetOptions(), llvm::Reloc::PIC_));
    m->setTargetTriple(triple);
    m->setDataLayout(tm->createDataLayout());
    for (llvm::Function& f : *m)
      if (!f.isDeclaration()) f.addFnAttr("target-cpu", o3_cpu);
  }
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = pto.SLPVectorization = o3_cpu != nullptr;
  llvm::PassBuilder pb(tm.get(), pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cam, mam);
  llvm::ModulePassManager mpm;
  mpm.addPass(parasol::kernels::WorkGroupLoweringPass());
  mpm.run(*m, mam);
  if (o3_cpu) pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(*m, mam);
  if (llvm::verifyModule(*m, &llvm::errs())) return 1;
  m->print(llvm::outs(), nullptr);
  return 0;
}
