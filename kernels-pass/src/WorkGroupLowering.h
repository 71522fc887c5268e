// The work-group lowering pass: turns each OpenCL kernel, written for one
// work-item, into a function that runs a whole work-group.
#pragma once

#include <llvm/IR/PassManager.h>

#include <string>

namespace parasol::kernels {

// Placeholders the built-in library calls and the pass resolves.
inline constexpr const char* kLocalIdFn = "__parasol_local_id";
inline constexpr const char* kLocalSizeFn = "__parasol_local_size";
inline constexpr const char* kGroupIdFn = "__parasol_group_id";
inline constexpr const char* kNumGroupsFn = "__parasol_num_groups";
inline constexpr const char* kGlobalOffsetFn = "__parasol_global_offset";
inline constexpr const char* kWorkDimFn = "__parasol_work_dim";
inline constexpr const char* kBarrierFn = "__parasol_barrier";

// Name of the work-group entry emitted for a kernel.
std::string work_group_entry_name(llvm::StringRef kernel);

// Function attributes the pass leaves on each entry for the driver.
inline constexpr const char* kLocalBytesAttr = "parasol-local-bytes";
inline constexpr const char* kPrivateBytesAttr = "parasol-private-bytes";

// For every kernel K (spir_kernel calling convention), emits
//   void <entry>(void* const* args, const NDRange*, const size_t* group_id, void* local_mem)
// with work-item loops around each barrier-free region, values that live
// across barriers privatised per work-item, kernel-scope __local variables
// placed in local_mem, and the loops marked parallel for the vectoriser.
// The original kernels become internal (dead once nothing calls them).
// Expects calls inlined into the kernels (barriers must be visible).
class WorkGroupLoweringPass : public llvm::PassInfoMixin<WorkGroupLoweringPass> {
 public:
  llvm::PreservedAnalyses run(llvm::Module& m, llvm::ModuleAnalysisManager& am);
};

}  // namespace parasol::kernels
