// parasol-kernels-opt: runs the work-group lowering pass on a .ll file and
// prints the result, for FileCheck tests.
//   parasol-kernels-opt input.ll [-o out.ll]
#include "WorkGroupLowering.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <cstring>

int main(int argc, char** argv) {
  const char* input = nullptr;
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] != '-' || std::strcmp(argv[i], "-") == 0) input = argv[i];
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
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cam, mam);
  llvm::ModulePassManager mpm;
  mpm.addPass(parasol::kernels::WorkGroupLoweringPass());
  mpm.run(*m, mam);
  if (llvm::verifyModule(*m, &llvm::errs())) return 1;
  m->print(llvm::outs(), nullptr);
  return 0;
}
