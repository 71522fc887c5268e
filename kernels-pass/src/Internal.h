// Pieces of the compiler shared between its source files (LLVM types allowed
// here: this header never leaves kernels-pass/src).
#pragma once

#include "parasol/kernels/access_ranges.h"
#include "parasol/kernels/compiler.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>
#include <vector>

namespace parasol::kernels::detail {

struct HostTarget {
  std::string triple, cpu, features;
};
const HostTarget& host_target();  // also initialises LLVM's x86 target once

struct FrontendOptions {
  std::vector<std::string> cc1_args;  // translated OpenCL build options
  bool opt_disable = false;
  bool permissive = false;  // every extension on, no warnings (describe())
  // Options a vendor extension defines (option, extension): left to the
  // devices that report the extension, never given to Clang.
  std::vector<std::pair<std::string, std::string>> vendor_options;
  // clCompileProgram's input headers: (include name, source).
  std::vector<std::pair<std::string, std::string>> headers;
};
// Parses OpenCL build options; false (with a log line) on an unknown one.
bool parse_build_options(std::string_view options, FrontendOptions& out, std::string& log);

// OpenCL C -> LLVM IR with Clang; null on error (diagnostics in log;
// refused_options when Clang refused the options' arguments).
std::unique_ptr<llvm::Module> run_frontend(llvm::LLVMContext& ctx, std::string_view source,
                                           const FrontendOptions& opts, std::string& log,
                                           bool& refused_options);
// The source preprocessed as run_frontend() would (Clang's -E, line markers
// naming every file read); false on error, as run_frontend().
bool preprocess(std::string_view source, const FrontendOptions& opts, std::string& out,
                std::string& log, bool& refused_options);

// Links the used parts of the built-in library into m; false on error.
bool link_builtins(llvm::Module& m, std::string& log);
// printf's vector conversions as scalar ones the host's printf knows
// (PrintfVectors.cpp); false, with a line in log, for one it cannot rewrite.
bool expand_printf_vectors(llvm::Module& m, std::string& log);

// Kernel descriptions from Clang's kernel_arg_* metadata (before lowering).
std::vector<KernelInfo> collect_kernel_info(const llvm::Module& m);

// The access ranges of the kernels (access_ranges.h) of a front-end module
// with the built-ins linked; inlines and simplifies m in place (give it a
// copy when the module is to be built too).
std::vector<KernelAccessRanges> analyse_module(llvm::Module& m, const std::vector<KernelInfo>& kernels);

std::unique_ptr<llvm::TargetMachine> create_target_machine(bool optimise);
// Inlines everything into kernels, lowers them to work-group functions and
// optimises for the host; false (with log) if something is left unresolved.
bool optimise_module(llvm::Module& m, llvm::TargetMachine& tm, bool opt_disable, std::string& log);
// Machine code for the module, as an ELF relocatable object.
bool emit_object(llvm::Module& m, llvm::TargetMachine& tm, std::vector<unsigned char>& obj,
                 std::string& log);

// A loaded object in the process-wide JIT; unloaded on destruction.
class JitImage {
 public:
  virtual ~JitImage() = default;
  // Null if absent or unresolvable; the reason is appended to *error.
  virtual void* lookup(const std::string& symbol, std::string* error = nullptr) = 0;
};
std::unique_ptr<JitImage> jit_load(const std::vector<unsigned char>& object, std::string& log);

// What a program is, in serialisable form.
// What a binary holds: an executable program (an ELF object ORC loads),
// or, from separate compilation, the front end's module as LLVM bitcode (a
// compiled object, or a library of them).
enum class ImageKind { Executable, Object, Library };
struct ProgramImage {
  std::vector<KernelInfo> kernels;
  std::uint64_t global_variable_bytes = 0;  // program-scope __global variables
  std::vector<unsigned char> object;
  ImageKind kind = ImageKind::Executable;
};
std::vector<unsigned char> serialise(const ProgramImage& img);
bool deserialise(const unsigned char* data, std::size_t size, ProgramImage& img, std::string& log);

// The on-disk cache (Compiler.cpp): the file that keeps what `kind` made
// of source under fo and options (empty: caching is off, or the source does
// not preprocess), and reading and writing one.
std::string cache_file(const char* kind, std::string_view source, const FrontendOptions& fo,
                       std::string_view options);
bool read_cache_file(const std::string& path, std::vector<unsigned char>& out);
void write_cache_file(const std::string& path, const std::vector<unsigned char>& data);

// A program's access ranges as the cache keeps them (AccessRangesImage.cpp);
// decode() refuses bytes that are not such an image.
std::vector<unsigned char> encode(const std::vector<KernelAccessRanges>& kernels);
bool decode(const unsigned char* data, std::size_t size, std::vector<KernelAccessRanges>& out);

}  // namespace parasol::kernels::detail
