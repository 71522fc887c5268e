// The public API: build(), describe(), separate compilation (compile_object(),
// link()), load_binary(), the on-disk cache.
#include "Internal.h"
#include "WorkGroupLowering.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/BLAKE3.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include <fcntl.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#define PARASOL_BUILTIN(sym) extern "C" const char sym[], sym##_end[];
#include "builtin_table.inc"
#undef PARASOL_BUILTIN
#include "source_hash.inc"

namespace parasol::kernels {

// The lowering pass reads NDRange through fixed offsets.
static_assert(offsetof(NDRange, work_dim) == 0);
static_assert(offsetof(NDRange, global_offset) == 8);
static_assert(offsetof(NDRange, global_size) == 32);
static_assert(offsetof(NDRange, local_size) == 56);
static_assert(offsetof(NDRange, num_groups) == 80);
// The image built-ins read ImageDesc through the same offsets (builtins/image.h).
static_assert(offsetof(ImageDesc, width) == 8);
static_assert(offsetof(ImageDesc, array_size) == 32);
static_assert(offsetof(ImageDesc, row_pitch) == 40);
static_assert(offsetof(ImageDesc, slice_pitch) == 48);
static_assert(offsetof(ImageDesc, channel_order) == 56);
static_assert(offsetof(ImageDesc, element_size) == 64);
static_assert(sizeof(ImageDesc) == 72);

namespace {

using namespace detail;

// The front end's address space map (-ffake-address-space-map, Frontend.cpp):
// __global is 1.
constexpr unsigned kGlobalAS = 1;

class Program final : public CompiledProgram {
 public:
  Program(ProgramImage img, std::unique_ptr<JitImage> jit, std::vector<unsigned char> binary,
          std::string& log)
      : img_(std::move(img)), jit_(std::move(jit)), binary_(std::move(binary)) {
    for (const KernelInfo& k : img_.kernels)
      entries_[k.name] = reinterpret_cast<WorkGroupFn>(jit_->lookup(work_group_entry_name(k.name), &log));
  }
  const std::vector<KernelInfo>& kernels() const override { return img_.kernels; }
  WorkGroupFn entry(std::string_view name) const override {
    auto it = entries_.find(std::string(name));
    return it == entries_.end() ? nullptr : it->second;
  }
  std::vector<unsigned char> binary() const override { return binary_; }
  std::size_t global_variable_bytes() const override { return img_.global_variable_bytes; }
  bool complete() const {
    for (auto& [n, f] : entries_)
      if (!f) return false;
    return true;
  }

 private:
  ProgramImage img_;
  std::unique_ptr<JitImage> jit_;
  std::vector<unsigned char> binary_;
  std::unordered_map<std::string, WorkGroupFn> entries_;
};

BuildResult from_image(ProgramImage img, std::vector<unsigned char> binary, std::string log) {
  BuildResult r;
  auto jit = jit_load(img.object, log);
  if (!jit) {
    r.log = std::move(log);
    return r;
  }
  auto p = std::make_unique<Program>(std::move(img), std::move(jit), std::move(binary), log);
  if (!p->complete()) {
    r.log = log + "error: a kernel's work-group entry could not be loaded\n";
    return r;
  }
  r.program = std::move(p);
  r.log = std::move(log);
  return r;
}

// text: the source as preprocess() gives it, or (form "text") the source
// itself where that is all the preprocessor reads.
std::string cache_key(std::string_view form, std::string_view text, std::string_view options) {
  const HostTarget& h = host_target();
  llvm::BLAKE3 hasher;
  auto add = [&](std::string_view s) {
    std::uint64_t n = s.size();
    hasher.update(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(&n), sizeof n));
    hasher.update(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  };
  add(compiler_id());
  add(form);
  add(h.cpu);
  add(h.features);
  add(options);
  add(text);
  auto digest = hasher.final();
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (uint8_t b : digest) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

bool read_file(const std::string& path, std::vector<unsigned char>& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0;
  if (ok) {
    out.resize(st.st_size);
    std::size_t done = 0;
    while (ok && done < out.size()) {
      ssize_t n = ::read(fd, out.data() + done, out.size() - done);
      if (n <= 0) ok = false;
      else done += n;
    }
  }
  ::close(fd);
  return ok;
}

void write_file_atomically(const std::string& dir, const std::string& path,
                           const std::vector<unsigned char>& data) {
  // mkdir -p; races with other writers are harmless (rename is atomic).
  for (std::size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0755);
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                    std::to_string(reinterpret_cast<std::uintptr_t>(&data));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  bool ok = ::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size());
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) ::unlink(tmp.c_str());
}

// PARASOL_KERNELS_TIMING=1 prints where a build's time goes.
// Thread CPU time, so a busy machine does not blur the picture.
struct PhaseTimer {
  bool on = std::getenv("PARASOL_KERNELS_TIMING") != nullptr;
  double t = now();
  static double now() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
  }
  void mark(const char* what) {
    if (!on) return;
    double n = now();
    std::fprintf(stderr, "[parasol-kernels] %-10s %8.2f ms cpu\n", what, n - t);
    t = n;
  }
};

// The rest of a build, from the front end's module: built-ins, lowering,
// optimisation, machine code, loaded into the JIT.
BuildResult finish(std::unique_ptr<llvm::Module> m, bool opt_disable, std::string log,
                   PhaseTimer& timer) {
  BuildResult r;
  r.log = std::move(log);
  if (!expand_printf_vectors(*m, r.log)) return r;
  ProgramImage img;
  // The program's own variables, before the built-ins bring theirs.
  const llvm::DataLayout& layout = m->getDataLayout();
  for (const llvm::GlobalVariable& gv : m->globals())
    if (gv.getAddressSpace() == kGlobalAS && !gv.isDeclaration())
      img.global_variable_bytes += layout.getTypeAllocSize(gv.getValueType());
  if (!link_builtins(*m, r.log)) return r;
  timer.mark("builtins");
  img.kernels = collect_kernel_info(*m);
  auto tm = create_target_machine(!opt_disable);
  if (!tm) {
    r.log += "error: no LLVM target for the host\n";
    return r;
  }
  if (!optimise_module(*m, *tm, opt_disable, r.log)) return r;
  timer.mark("optimise");
  if (const char* dump = std::getenv("PARASOL_DUMP_IR")) {  // debugging aid
    std::error_code ec;
    llvm::raw_fd_ostream os(dump, ec);
    if (!ec) m->print(os, nullptr);
  }
  for (KernelInfo& k : img.kernels) {
    if (llvm::Function* w = m->getFunction(work_group_entry_name(k.name))) {
      w->getFnAttribute(kLocalBytesAttr).getValueAsString().getAsInteger(10, k.static_local_bytes);
      w->getFnAttribute(kPrivateBytesAttr).getValueAsString().getAsInteger(10, k.private_bytes);
    }
  }
  if (!emit_object(*m, *tm, img.object, r.log)) return r;
  timer.mark("codegen");
  auto binary = serialise(img);
  BuildResult out = from_image(std::move(img), std::move(binary), std::move(r.log));
  timer.mark("jit-load");
  return out;
}

BuildResult compile(std::string_view source, const FrontendOptions& fo) {
  BuildResult r;
  PhaseTimer timer;
  llvm::LLVMContext ctx;
  auto m = run_frontend(ctx, source, fo, r.log, r.invalid_options);
  timer.mark("frontend");
  if (!m) return r;
  return finish(std::move(m), fo.opt_disable, std::move(r.log), timer);
}

std::vector<unsigned char> bitcode_of(const llvm::Module& m) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::WriteBitcodeToFile(m, os);
  return std::vector<unsigned char>(buffer.begin(), buffer.end());
}

}  // namespace

std::string_view compiler_id() {
  static const std::string id = [] {
    // The built-in library is part of the compiler: hash it in.
    std::uint64_t h = 0;
#define PARASOL_BUILTIN(sym)                                                                  \
  h = h * 31 + llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(sym), \
                                                         sym##_end - sym));
#include "builtin_table.inc"
#undef PARASOL_BUILTIN
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return std::string("parasol-kernels 0.1.0, LLVM " PARASOL_LLVM_VERSION ", builtins ") + buf +
           ", sources " PARASOL_KERNELS_SOURCE_HASH;
  }();
  return id;
}

std::string cache_directory() {
  if (const char* d = std::getenv("PARASOL_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/parasol";
  if (const char* d = std::getenv("HOME"); d && *d) return std::string(d) + "/.cache/parasol";
  return "/tmp/parasol-cache";
}

namespace {

// Whether what the preprocessor makes of source depends on its text and the
// options alone: no directive or operator that reads a file (#include,
// #include_next, __has_include, #embed, __has_embed) and no macro of the
// clock. A false answer only costs a preprocessing run.
bool self_contained(std::string_view source) {
  for (std::string_view word : {"include", "embed", "__DATE__", "__TIME__", "__TIMESTAMP__"})
    if (source.find(word) != std::string_view::npos) return false;
  return true;
}

// Where the outcome of compiling `source` under `fo` is cached, in the
// cache's `kind` folder; empty when caching is off (PARASOL_NO_KERNEL_CACHE)
// or the source does not preprocess (refused_options when Clang refused the
// options; the log says why).
//
// The key is the preprocessed source, not its text: the contents of every
// file it includes (through -I or relative to the working directory) and
// what __has_include finds are then part of it, so an edited header is
// never served the outcome of the old one. (Skipping the cache under -I
// alone would not do: a quoted #include also finds files in the working
// directory.) It costs a preprocessing run, about a millisecond, against
// tens to hundreds for a compile; a source that fails to preprocess is
// compiled, uncached, for its log. A source that names no file and no
// clock (self_contained()) preprocesses to the same text whatever the files
// around it, so its own text is the key, without the run.
std::string cache_path(const char* kind, std::string_view source, const FrontendOptions& fo,
                       std::string_view options, std::string& log, bool& refused_options) {
  refused_options = false;
  if (std::getenv("PARASOL_NO_KERNEL_CACHE") != nullptr) return {};
  const std::string folder = cache_directory() + "/" + kind + "/";
  if (self_contained(source)) return folder + cache_key("text", source, options) + ".bin";
  std::string preprocessed;
  if (!preprocess(source, fo, preprocessed, log, refused_options)) return {};
  return folder + cache_key("preprocessed", preprocessed, options) + ".bin";
}

std::string folder_of(const std::string& path) { return path.substr(0, path.rfind('/')); }

}  // namespace

namespace detail {

std::string cache_file(const char* kind, std::string_view source, const FrontendOptions& fo,
                       std::string_view options) {
  std::string ignored;
  bool refused = false;
  return cache_path(kind, source, fo, options, ignored, refused);
}
bool read_cache_file(const std::string& path, std::vector<unsigned char>& out) {
  return read_file(path, out);
}
void write_cache_file(const std::string& path, const std::vector<unsigned char>& data) {
  write_file_atomically(folder_of(path), path, data);
}

}  // namespace detail

BuildResult build(std::string_view source, std::string_view options) {
  BuildResult r;
  FrontendOptions fo;
  if (!parse_build_options(options, fo, r.log)) {
    r.invalid_options = true;
    return r;
  }
  for (const auto& [option, extension] : fo.vendor_options) {
    r.log += "error: build option '" + option + "' belongs to " + extension +
             ", which the Parasol native CPU device does not support\n";
    r.invalid_options = true;
  }
  if (r.invalid_options) return r;
  const std::string path = cache_path("kernels", source, fo, options, r.log, r.invalid_options);
  if (r.invalid_options) return r;
  std::vector<unsigned char> bytes;
  if (!path.empty() && read_file(path, bytes)) {
    BuildResult cached = load_binary(bytes.data(), bytes.size());
    if (cached.program) return cached;  // a stale or corrupt entry is rebuilt below
  }
  r = compile(source, fo);
  if (!path.empty() && r.program) write_file_atomically(folder_of(path), path, r.program->binary());
  return r;
}

OptionsCheck check_options(std::string_view options) {
  OptionsCheck c;
  FrontendOptions fo;
  c.valid = parse_build_options(options, fo, c.log);
  c.vendor_options = std::move(fo.vendor_options);
  return c;
}

Description describe(std::string_view source, std::string_view options,
                     const std::vector<Header>& headers) {
  Description d;
  FrontendOptions fo;
  if (!parse_build_options(options, fo, d.log)) {
    d.invalid_options = true;
    return d;
  }
  fo.permissive = true;
  for (const Header& h : headers) fo.headers.emplace_back(h.include_name, h.source);
  std::string ignored;
  bool refused = false;
  const std::string path = cache_path("descriptions", source, fo, options, ignored, refused);
  std::vector<unsigned char> bytes;
  ProgramImage img;
  if (!path.empty() && read_file(path, bytes) &&
      deserialise(bytes.data(), bytes.size(), img, ignored)) {
    d.kernels = std::move(img.kernels);
    d.parsed = true;
    return d;
  }
  llvm::LLVMContext ctx;
  auto m = run_frontend(ctx, source, fo, d.log, d.invalid_options);
  if (!m) return d;
  d.kernels = collect_kernel_info(*m);
  d.parsed = true;
  if (!path.empty())
    write_file_atomically(folder_of(path), path, serialise(ProgramImage{d.kernels, 0, {}}));
  return d;
}

std::span<const char* const> opencl_c_features() {
  // Images with 3D writes and read_write access (builtins/image*.cl),
  // doubles and 64-bit integers, one address space for every pointer (on
  // the CPU they all are), program-scope globals (module globals of the
  // JIT), and every atomic order and scope (the CPU's atomics are
  // sequentially consistent across the whole device).
  static const char* const features[] = {
      "__opencl_c_images", "__opencl_c_3d_image_writes", "__opencl_c_read_write_images",
      "__opencl_c_fp64", "__opencl_c_int64", "__opencl_c_generic_address_space",
      "__opencl_c_program_scope_global_variables", "__opencl_c_atomic_order_acq_rel",
      "__opencl_c_atomic_order_seq_cst", "__opencl_c_atomic_scope_device",
      "__opencl_c_atomic_scope_all_devices"};
  return features;
}

BinaryKind binary_kind(const unsigned char* data, std::size_t size) {
  ProgramImage img;
  std::string ignored;
  if (!deserialise(data, size, img, ignored)) return BinaryKind::Invalid;
  switch (img.kind) {
    case ImageKind::Executable: return BinaryKind::Executable;
    case ImageKind::Object: return BinaryKind::Object;
    case ImageKind::Library: return BinaryKind::Library;
  }
  return BinaryKind::Invalid;
}

ObjectResult compile_object(std::string_view source, std::string_view options,
                            const std::vector<Header>& headers) {
  ObjectResult r;
  FrontendOptions fo;
  if (!parse_build_options(options, fo, r.log)) {
    r.invalid_options = true;
    return r;
  }
  for (const auto& [option, extension] : fo.vendor_options) {
    r.log += "error: compile option '" + option + "' belongs to " + extension +
             ", which the Parasol native CPU device does not support\n";
    r.invalid_options = true;
  }
  if (r.invalid_options) return r;
  for (const Header& h : headers) fo.headers.emplace_back(h.include_name, h.source);
  llvm::LLVMContext ctx;
  auto m = run_frontend(ctx, source, fo, r.log, r.invalid_options);
  if (!m) return r;
  ProgramImage img;
  img.kind = ImageKind::Object;
  img.kernels = collect_kernel_info(*m);
  img.object = bitcode_of(*m);
  r.kernels = img.kernels;
  r.binary = serialise(img);
  return r;
}

LinkResult link(const std::vector<std::vector<unsigned char>>& inputs, bool create_library) {
  LinkResult r;
  PhaseTimer timer;
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> linked;
  for (const auto& bytes : inputs) {
    ProgramImage img;
    if (!deserialise(bytes.data(), bytes.size(), img, r.log)) return r;
    if (img.kind == ImageKind::Executable) {
      r.log += "error: an input of the link is an executable, not a compiled object or library\n";
      return r;
    }
    llvm::StringRef code(reinterpret_cast<const char*>(img.object.data()), img.object.size());
    auto m = llvm::parseBitcodeFile(llvm::MemoryBufferRef(code, "input"), ctx);
    if (!m) {
      r.log += "error: unreadable compiled object: " + llvm::toString(m.takeError()) + "\n";
      return r;
    }
    if (!linked) {
      linked = std::move(*m);
    } else if (llvm::Linker::linkModules(*linked, std::move(*m))) {
      r.log += "error: the inputs define the same symbol more than once, or disagree on one\n";
      return r;
    }
  }
  if (!linked) {
    r.log += "error: nothing to link\n";
    return r;
  }
  timer.mark("link");
  r.kernels = collect_kernel_info(*linked);
  if (create_library) {
    ProgramImage img;
    img.kind = ImageKind::Library;
    img.kernels = r.kernels;
    img.object = bitcode_of(*linked);
    r.library = serialise(img);
    return r;
  }
  BuildResult built = finish(std::move(linked), false, std::move(r.log), timer);
  r.program = std::move(built.program);
  r.log = std::move(built.log);
  return r;
}

BuildResult load_binary(const unsigned char* data, std::size_t size) {
  ProgramImage img;
  BuildResult r;
  if (!deserialise(data, size, img, r.log)) return r;
  if (img.kind != ImageKind::Executable) {
    r.log += "error: a compiled object or a library, not an executable: link it first\n";
    return r;
  }
  return from_image(std::move(img), std::vector<unsigned char>(data, data + size), std::move(r.log));
}

}  // namespace parasol::kernels
