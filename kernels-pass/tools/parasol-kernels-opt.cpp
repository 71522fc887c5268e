// parasol-kernels-opt: runs the work-group lowering pass on a .ll file and
// prints the result, for FileCheck tests; or prints the access ranges of
// each kernel of an OpenCL C file (access_ranges.h).
//   parasol-kernels-opt input.ll [-o out.ll]
//   parasol-kernels-opt --access-ranges input.cl [build options...]
#include "WorkGroupLowering.h"
#include "parasol/kernels/access_ranges.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

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
