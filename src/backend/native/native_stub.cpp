// Built when the native CPU device's compiler is not (PARASOL_NATIVE_CPU=OFF).
#include "backend/native/access_ranges.h"
#include "backend/native/native_compiler.h"

namespace parasol::backend::native {

bool available() { return false; }
bool has_compiler() { return false; }
OptionsCheck check_options(const std::string&) { return {}; }
Description describe(const std::string&, const std::string&, const Headers&) {
  Description d;
  d.log = "Parasol was built without its own compiler";
  return d;
}
BinaryKind binary_kind(const unsigned char*, std::size_t) { return BinaryKind::Invalid; }
Compiled compile_object(const std::string&, const std::string&, const Headers&) {
  return {{}, {}, "Parasol was built without its native CPU compiler", false};
}
Linked link(const std::vector<std::vector<unsigned char>>&, bool) {
  Linked l;
  l.log = "Parasol was built without its native CPU compiler";
  return l;
}
std::shared_ptr<NativeProgram> build(const std::string&, const std::string&, std::string& log,
                                     bool& invalid_options) {
  invalid_options = false;
  log = "Parasol was built without its native CPU compiler";
  return nullptr;
}
std::shared_ptr<NativeProgram> load_binary(const unsigned char*, std::size_t, std::string& log) {
  log = "Parasol was built without its native CPU compiler";
  return nullptr;
}
std::vector<unsigned char> binary(const NativeProgram&) { return {}; }
std::vector<std::string> kernel_names(const NativeProgram&) { return {}; }
std::size_t global_variable_bytes(const NativeProgram&) { return 0; }
std::vector<KernelSignature> signatures(const NativeProgram&) { return {}; }
std::shared_ptr<NativeKernel> find_kernel(const std::shared_ptr<NativeProgram>&, const std::string&) {
  return nullptr;
}
std::vector<KernelArgInfo> arg_info(const NativeKernel&) { return {}; }
std::size_t value_size(const NativeKernel&, cl_uint) { return 0; }
std::array<std::size_t, 3> reqd_work_group_size(const NativeKernel&) { return {0, 0, 0}; }
std::size_t local_bytes(const NativeKernel&, std::size_t) { return 0; }
std::size_t private_bytes(const NativeKernel&) { return 0; }
std::string attributes(const NativeKernel&) { return {}; }
cl_int run(const NativeKernel&, std::span<const Arg>, const Launch&) {
  return CL_INVALID_OPERATION;
}
bool image_support() { return false; }
std::vector<cl_image_format> image_formats(cl_mem_object_type) { return {}; }
std::array<std::size_t, 3> image_max(cl_mem_object_type) { return {0, 0, 0}; }
std::size_t max_work_group_size() { return 1024; }
cl_uint compute_units() { return 1; }
std::span<const char* const> opencl_c_features() { return {}; }

struct ProgramRanges {};
struct KernelRanges {};
std::shared_ptr<const ProgramRanges> analyse_ranges(const std::string&, const std::string&,
                                                    std::string& log) {
  log = "Parasol was built without its own compiler";
  return nullptr;
}
const KernelRanges* kernel_ranges(const ProgramRanges&, const std::string&) { return nullptr; }
SplitAbility split_ability(const KernelRanges&) { return {}; }
bool blocks_write_apart(const KernelRanges&, const RangeLaunch&, unsigned, std::string& why) {
  why = "no analysis";
  return false;
}
BlockBytes block_bytes(const KernelRanges&, cl_uint, Access, const RangeLaunch&, std::size_t,
                       std::size_t, unsigned) {
  return {true, 0, 0};
}
bool has_atomics(const KernelRanges&, cl_uint) { return true; }
std::string describe(const KernelRanges&) { return {}; }

}  // namespace parasol::backend::native
