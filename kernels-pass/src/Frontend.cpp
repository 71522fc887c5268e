// OpenCL C to LLVM IR with Clang, in-process.
#include "Internal.h"

#include <algorithm>
#include <cstring>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/PreprocessorOutputOptions.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

extern "C" const char parasol_opencl_c_base[], parasol_opencl_c_base_end[];

namespace parasol::kernels::detail {

namespace {
constexpr const char* kIncludeDir = "/parasol-builtin-include";
constexpr const char* kInputName = "input.cl";
// Where clCompileProgram's input headers are found (by their include names).
constexpr const char* kHeaderDir = "/parasol-input-headers";

// Splits the option string like a shell would, minus expansions.
std::vector<std::string> split_options(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  bool in_token = false;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < s.size()) cur += s[++i];
      else cur += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_token = true;
    } else if (c == '\\' && i + 1 < s.size()) {
      cur += s[++i];
      in_token = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_token) out.push_back(cur);
      cur.clear();
      in_token = false;
    } else {
      cur += c;
      in_token = true;
    }
  }
  if (in_token) out.push_back(cur);
  return out;
}

// The extension that defines a vendor's build option, by the option's
// prefix; null for any other option.
const char* vendor_extension_of(const std::string& option) {
  static const std::pair<const char*, const char*> prefixes[] = {
      {"-cl-nv-", "cl_nv_compiler_options"},
  };
  for (const auto& [prefix, extension] : prefixes)
    if (option.rfind(prefix, 0) == 0) return extension;
  return nullptr;
}

}  // namespace

bool parse_build_options(std::string_view options, FrontendOptions& out, std::string& log) {
  auto args = split_options(options);
  // Every option of clBuildProgram in OpenCL 1.2 (5.6.4) is accepted: -D,
  // -I, -cl-std= and -cl-opt-disable below, the rest in these two lists.
  // Options Clang's cc1 understands with the same spelling.
  static const char* const passthrough[] = {
      "-w", "-Werror", "-cl-mad-enable", "-cl-fast-relaxed-math", "-cl-finite-math-only",
      "-cl-unsafe-math-optimizations", "-cl-no-signed-zeros",
      "-cl-single-precision-constant", "-cl-fp32-correctly-rounded-divide-sqrt",
      "-cl-uniform-work-group-size"};
  // Options that change nothing here:
  //  -cl-denorms-are-zero: a hint the spec lets a device that supports
  //    denormals ignore; this one does (CL_FP_DENORM) and keeps them (Clang's
  //    driver translates the option; cc1 does not know it);
  //  -cl-kernel-arg-info: argument information is always kept;
  //  -cl-strict-aliasing (OpenCL 1.0), -g, -cl-no-subgroup-ifp (2.1, no
  //    subgroups here) and -O0..-O3 (not OpenCL's, common elsewhere):
  //    accepted for portability of option strings.
  static const char* const ignored[] = {"-cl-denorms-are-zero", "-cl-kernel-arg-info",
                                        "-cl-strict-aliasing", "-g", "-cl-no-subgroup-ifp",
                                        "-O0", "-O1", "-O2", "-O3"};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto with_value = [&](const char* flag) -> bool {
      size_t n = std::strlen(flag);
      if (a == flag) {
        if (i + 1 >= args.size()) return false;
        out.cc1_args.push_back(flag);
        out.cc1_args.push_back(args[++i]);
        return true;
      }
      if (a.compare(0, n, flag) == 0) {
        out.cc1_args.push_back(a);
        return true;
      }
      return false;
    };
    if (with_value("-D") || with_value("-I") || with_value("-U")) continue;
    if (a.rfind("-cl-std=", 0) == 0) {
      std::string v = a.substr(8);
      if (v != "CL1.0" && v != "CL1.1" && v != "CL1.2" && v != "CL2.0" && v != "CL3.0") {
        log += "error: unsupported OpenCL C version in '" + a + "'\n";
        return false;
      }
      out.cc1_args.push_back(a);
      // Features of OpenCL C 3.0 that Clang's header defines for SPIR
      // targets only, not through -cl-ext; the native device has them
      // (opencl_c_features()).
      if (v == "CL3.0") {
        out.cc1_args.push_back("-D__opencl_c_atomic_scope_device=1");
        out.cc1_args.push_back("-D__opencl_c_atomic_scope_all_devices=1");
      }
      continue;
    }
    if (a == "-cl-opt-disable") {
      out.opt_disable = true;
      continue;
    }
    if (std::find_if(std::begin(passthrough), std::end(passthrough),
                     [&](const char* p) { return a == p; }) != std::end(passthrough)) {
      out.cc1_args.push_back(a);
      continue;
    }
    if (std::find_if(std::begin(ignored), std::end(ignored),
                     [&](const char* p) { return a == p; }) != std::end(ignored))
      continue;
    if (const char* extension = vendor_extension_of(a)) {
      out.vendor_options.emplace_back(a, extension);
      continue;
    }
    if (a.rfind("-W", 0) == 0) {  // other warning switches: let Clang judge
      out.cc1_args.push_back(a);
      continue;
    }
    log += "error: invalid build option '" + a + "'\n";
    return false;
  }
  return true;
}

namespace {

// -E into a string (Clang's PrintPreprocessedAction writes to a file).
class PreprocessToString final : public clang::PreprocessorFrontendAction {
 public:
  explicit PreprocessToString(std::string& out) : os_(out) {}

 private:
  void ExecuteAction() override {
    clang::CompilerInstance& ci = getCompilerInstance();
    // What -E prints (the invocation is not an -E one, so say it): the
    // tokens and line markers, no macro list.
    clang::PreprocessorOutputOptions what = ci.getPreprocessorOutputOpts();
    what.ShowCPP = 1;
    what.ShowMacros = 0;
    what.ShowLineMarkers = 1;
    clang::DoPrintPreprocessedInput(ci.getPreprocessor(), &os_, what);
    os_.flush();
  }
  llvm::raw_string_ostream os_;
};

// Runs `action` with Clang over the source: Parasol's cc1 arguments, then
// the options'. Clang's diagnostics go to the log. False if Clang refused
// the arguments (refused_options: Parasol's own are fixed, so the options
// are at fault) or the action failed.
bool run_clang(std::string_view source, const FrontendOptions& opts, clang::FrontendAction& action,
               std::string& log, bool& refused_options) {
  refused_options = false;
  std::vector<std::string> args = {
      "-triple", "x86_64-unknown-linux-gnu",
      // Real -O, no LLVM passes: Clang would otherwise mark everything optnone.
      "-O2", "-disable-llvm-passes",
      // Distinct address spaces tell __local from the rest; they are all
      // plain pointers to the x86 back end.
      "-ffake-address-space-map",
      "-finclude-default-header", "-fdeclare-opencl-builtins",
      "-internal-isystem", kIncludeDir, "-nostdsysteminc", "-nobuiltininc",
      "-cl-kernel-arg-info", "-fno-dwarf-directory-asm", "-ferror-limit", "50",
      "-cl-std=CL1.2",
      // The OpenCL version of the device (the native device's
      // CL_DEVICE_VERSION is OpenCL 3.0): the one predefined macro of
      // OpenCL C (6.10 of 1.2) that Clang leaves to the implementation.
      "-D__OPENCL_VERSION__=300",
      // Images, 3D image writes included (builtins/image*.cl).
      // __IMAGE_SUPPORT__ (6.10, left to the implementation like the
      // version) follows CL_DEVICE_IMAGE_SUPPORT (test_native_programs
      // checks that the two agree).
      "-D__IMAGE_SUPPORT__=1"};
  // The extensions the native device reports, and under -cl-std=CL3.0 the
  // optional features it reports (opencl_c_features()), nothing else.
  static const std::string extensions = [] {
    std::string s =
        "-cl-ext=-all,+cl_khr_fp64,+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics,"
        "+cl_khr_global_int32_base_atomics,+cl_khr_global_int32_extended_atomics,"
        "+cl_khr_local_int32_base_atomics,+cl_khr_local_int32_extended_atomics,"
        "+cl_khr_byte_addressable_store,+cl_khr_3d_image_writes";
    for (const char* f : opencl_c_features()) s += std::string(",+") + f;
    return s;
  }();
  args.push_back(extensions);
  if (!opts.headers.empty()) {
    args.push_back("-I");
    args.push_back(kHeaderDir);
  }
  args.insert(args.end(), opts.cc1_args.begin(), opts.cc1_args.end());
  if (opts.permissive) {
    args.push_back("-cl-ext=+all");
    args.push_back("-w");
  }
  args.push_back("-x");
  args.push_back("cl");
  args.push_back(kInputName);
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());

  std::string diag_text;
  llvm::raw_string_ostream diag_os(diag_text);
  auto inv = std::make_shared<clang::CompilerInvocation>();
  {
    // Argument errors only; the real engine below honours -W/-w/-Werror.
    auto arg_diag_opts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
    clang::TextDiagnosticPrinter arg_printer(diag_os, arg_diag_opts.get());
    clang::DiagnosticsEngine arg_diags(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(),
                                       arg_diag_opts, &arg_printer, false);
    if (!clang::CompilerInvocation::CreateFromArgs(*inv, argv, arg_diags)) {
      diag_os.flush();
      log += diag_text;
      if (diag_text.empty()) log += "error: invalid build options\n";
      refused_options = true;
      return false;
    }
  }
  inv->getDiagnosticOpts().ShowColors = false;
  inv->getCodeGenOpts().EmitOpenCLArgMetadata = true;

  clang::CompilerInstance ci;
  ci.setInvocation(inv);
  ci.createDiagnostics(new clang::TextDiagnosticPrinter(diag_os, &inv->getDiagnosticOpts()),
                       /*ShouldOwnClient=*/true);
  ci.setVerboseOutputStream(diag_os);  // "N errors generated." goes to the log too

  // The source and Clang's OpenCL base header come from memory; -I paths
  // still reach the real file system.
  auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  mem->addFile(std::string(kIncludeDir) + "/opencl-c-base.h", 0,
               llvm::MemoryBuffer::getMemBuffer(
                   llvm::StringRef(parasol_opencl_c_base,
                                   parasol_opencl_c_base_end - parasol_opencl_c_base - 1),
                   "opencl-c-base.h", false));
  for (const auto& [name, text] : opts.headers)
    mem->addFile(std::string(kHeaderDir) + "/" + name, 0,
                 llvm::MemoryBuffer::getMemBufferCopy(text, name));
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(mem);
  ci.createFileManager(overlay);
  inv->getPreprocessorOpts().addRemappedFile(
      kInputName, llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(source.data(), source.size()),
                                                       kInputName).release());
  inv->getPreprocessorOpts().RetainRemappedFileBuffers = false;

  bool ok = ci.ExecuteAction(action);
  diag_os.flush();
  log += diag_text;
  return ok;
}

}  // namespace

std::unique_ptr<llvm::Module> run_frontend(llvm::LLVMContext& ctx, std::string_view source,
                                           const FrontendOptions& opts, std::string& log,
                                           bool& refused_options) {
  clang::EmitLLVMOnlyAction action(&ctx);
  if (!run_clang(source, opts, action, log, refused_options)) return nullptr;
  return action.takeModule();
}

bool preprocess(std::string_view source, const FrontendOptions& opts, std::string& out,
                std::string& log, bool& refused_options) {
  PreprocessToString action(out);
  return run_clang(source, opts, action, log, refused_options);
}

}  // namespace parasol::kernels::detail
