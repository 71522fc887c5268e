// The native CPU device's programs and launches, over kernels-pass/.
#include "backend/native/native_compiler.h"

#include <parasol/kernels/compiler.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "backend/native/thread_pool.h"
#include "util/settings.h"

namespace parasol::backend::native {

struct NativeProgram {
  std::unique_ptr<kernels::CompiledProgram> compiled;
};

struct NativeKernel {
  std::shared_ptr<NativeProgram> program;  // keeps the JIT code alive
  kernels::WorkGroupFn fn = nullptr;
  const kernels::KernelInfo* info = nullptr;
};

bool available() {
  return settings::native_device();
}

bool has_compiler() { return true; }

namespace {

std::vector<KernelArgInfo> to_arg_info(const std::vector<kernels::ArgInfo>& args) {
  std::vector<KernelArgInfo> out;
  for (const auto& a : args) {
    KernelArgInfo i;
    i.address = a.address;
    i.access = a.access;
    i.type_qualifier = a.type_qualifier;
    i.type_name = a.type_name;
    i.name = a.name;
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace

OptionsCheck check_options(const std::string& options) {
  kernels::OptionsCheck c = kernels::check_options(options);
  return {c.valid, std::move(c.log), std::move(c.vendor_options)};
}

namespace {

std::vector<kernels::Header> to_headers(const Headers& headers) {
  std::vector<kernels::Header> out;
  for (const auto& [name, source] : headers) out.push_back({name, source});
  return out;
}

std::vector<KernelSignature> to_signatures(const std::vector<kernels::KernelInfo>& infos) {
  std::vector<KernelSignature> out;
  for (const auto& k : infos) out.push_back({k.name, to_arg_info(k.args)});
  return out;
}

}  // namespace

Description describe(const std::string& source, const std::string& options,
                     const Headers& headers) {
  kernels::Description d = kernels::describe(source, options, to_headers(headers));
  Description out;
  out.parsed = d.parsed;
  out.invalid_options = d.invalid_options;
  out.log = std::move(d.log);
  out.kernels = to_signatures(d.kernels);
  return out;
}

BinaryKind binary_kind(const unsigned char* data, std::size_t size) {
  switch (kernels::binary_kind(data, size)) {
    case kernels::BinaryKind::Executable: return BinaryKind::Executable;
    case kernels::BinaryKind::Object: return BinaryKind::Object;
    case kernels::BinaryKind::Library: return BinaryKind::Library;
    case kernels::BinaryKind::Invalid: break;
  }
  return BinaryKind::Invalid;
}

Compiled compile_object(const std::string& source, const std::string& options,
                        const Headers& headers) {
  kernels::ObjectResult r = kernels::compile_object(source, options, to_headers(headers));
  return {std::move(r.binary), to_signatures(r.kernels), std::move(r.log), r.invalid_options};
}

Linked link(const std::vector<std::vector<unsigned char>>& inputs, bool create_library) {
  kernels::LinkResult r = kernels::link(inputs, create_library);
  Linked out;
  out.kernels = to_signatures(r.kernels);
  out.log = std::move(r.log);
  out.library = std::move(r.library);
  if (r.program) {
    out.program = std::make_shared<NativeProgram>();
    out.program->compiled = std::move(r.program);
  }
  return out;
}

std::shared_ptr<NativeProgram> build(const std::string& source, const std::string& options,
                                     std::string& log, bool& invalid_options) {
  kernels::BuildResult r = kernels::build(source, options);
  log = std::move(r.log);
  invalid_options = r.invalid_options;
  if (!r.program) return nullptr;
  auto p = std::make_shared<NativeProgram>();
  p->compiled = std::move(r.program);
  return p;
}

std::shared_ptr<NativeProgram> load_binary(const unsigned char* data, std::size_t size,
                                           std::string& log) {
  kernels::BuildResult r = kernels::load_binary(data, size);
  log = std::move(r.log);
  if (!r.program) return nullptr;
  auto p = std::make_shared<NativeProgram>();
  p->compiled = std::move(r.program);
  return p;
}

std::vector<unsigned char> binary(const NativeProgram& program) { return program.compiled->binary(); }

std::vector<std::string> kernel_names(const NativeProgram& program) {
  std::vector<std::string> names;
  for (const auto& k : program.compiled->kernels()) names.push_back(k.name);
  return names;
}

std::size_t global_variable_bytes(const NativeProgram& program) {
  return program.compiled->global_variable_bytes();
}

std::vector<KernelSignature> signatures(const NativeProgram& program) {
  return to_signatures(program.compiled->kernels());
}

std::shared_ptr<NativeKernel> find_kernel(const std::shared_ptr<NativeProgram>& program,
                                          const std::string& name) {
  for (const auto& k : program->compiled->kernels()) {
    if (k.name != name) continue;
    auto nk = std::make_shared<NativeKernel>();
    nk->program = program;
    nk->fn = program->compiled->entry(name);
    nk->info = &k;
    return nk->fn ? nk : nullptr;
  }
  return nullptr;
}

std::vector<KernelArgInfo> arg_info(const NativeKernel& kernel) {
  return to_arg_info(kernel.info->args);
}

std::size_t value_size(const NativeKernel& kernel, cl_uint index) {
  const auto& a = kernel.info->args.at(index);
  return a.kind == kernels::ArgKind::Value ? a.size : 0;
}

std::array<std::size_t, 3> reqd_work_group_size(const NativeKernel& kernel) {
  return kernel.info->reqd_work_group_size;
}

std::size_t private_bytes(const NativeKernel& kernel) { return kernel.info->private_bytes; }
std::string attributes(const NativeKernel& kernel) { return kernel.info->attributes; }

std::size_t local_bytes(const NativeKernel& kernel, std::size_t argument_local_bytes) {
  return kernel.info->static_local_bytes + argument_local_bytes;
}

std::span<const char* const> opencl_c_features() { return kernels::opencl_c_features(); }

// The native device's built-ins read and write every image format of
// OpenCL 1.2 (kernels-pass/builtins/image*.cl), in every image type.
bool image_support() { return true; }

std::vector<cl_image_format> image_formats(cl_mem_object_type) {
  static const std::vector<cl_image_format> formats = [] {
    const cl_channel_order orders[] = {CL_R, CL_A, CL_RG, CL_RA, CL_RGB, CL_RGBA, CL_BGRA,
                                       CL_ARGB, CL_INTENSITY, CL_LUMINANCE, CL_Rx, CL_RGx,
                                       CL_RGBx};
    const cl_channel_type types[] = {
        CL_SNORM_INT8, CL_SNORM_INT16, CL_UNORM_INT8, CL_UNORM_INT16, CL_UNORM_SHORT_565,
        CL_UNORM_SHORT_555, CL_UNORM_INT_101010, CL_SIGNED_INT8, CL_SIGNED_INT16,
        CL_SIGNED_INT32, CL_UNSIGNED_INT8, CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT,
        CL_FLOAT};
    std::vector<cl_image_format> all;
    for (cl_channel_order o : orders)
      for (cl_channel_type t : types)
        if (element_size({o, t})) all.push_back({o, t});
    return all;
  }();
  return formats;
}

// Extents stay exact as floats (below 2^24) and within an int, as the
// built-ins' coordinates need; each at least OpenCL 1.2's minimum.
std::array<std::size_t, 3> image_max(cl_mem_object_type type) {
  constexpr std::size_t k2d = 16384, k3d = 2048, kLayers = 2048, kBuffer = std::size_t{1} << 27;
  switch (type) {
    case CL_MEM_OBJECT_IMAGE1D_BUFFER: return {kBuffer, 1, 1};
    case CL_MEM_OBJECT_IMAGE1D: return {k2d, 1, 1};
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: return {k2d, kLayers, 1};
    case CL_MEM_OBJECT_IMAGE2D: return {k2d, k2d, 1};
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: return {k2d, k2d, kLayers};
    case CL_MEM_OBJECT_IMAGE3D: return {k3d, k3d, k3d};
    default: return {0, 0, 0};
  }
}

std::size_t max_work_group_size() { return 1024; }

cl_uint compute_units() { return static_cast<cl_uint>(ThreadPool::instance().size()); }

namespace {

// A work-group size for a launch that gave none: divisors of the global
// size, wide in the first dimension (vectorised across work-items).
std::array<std::size_t, 3> choose_local(const Launch& l) {
  const std::size_t caps[3] = {l.work_dim == 1 ? 256u : 32u, 8u, 4u};
  std::array<std::size_t, 3> local{1, 1, 1};
  for (cl_uint d = 0; d < l.work_dim; ++d) {
    std::size_t best = 1;
    for (std::size_t c = 1; c <= caps[d] && c <= l.global[d]; ++c)
      if (l.global[d] % c == 0) best = c;
    local[d] = best;
  }
  return local;
}

// __local memory of one thread, aligned like a buffer (CL_DEVICE_MEM_BASE_ADDR_ALIGN,
// 128 bytes): the compiler lays out kernel-scope variables from an aligned
// base and may use aligned vector loads (a float16 in __local: 64 bytes).
struct AlignedFree {
  void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t{kLocalAlign}); }
  static constexpr std::size_t kLocalAlign = 128;
};
using LocalBlock = std::unique_ptr<std::byte[], AlignedFree>;
LocalBlock local_block(std::size_t bytes) {
  return LocalBlock(new (std::align_val_t{AlignedFree::kLocalAlign}) std::byte[bytes ? bytes : 1]);
}

// Per-thread state of a launch: the argument block and private __local memory.
struct ThreadState {
  std::vector<void*> args;
  std::vector<void*> pointers;
  std::vector<LocalBlock> locals;
  LocalBlock static_local;
  bool ready = false;
};

}  // namespace

cl_int run(const NativeKernel& kernel, std::span<const Arg> args, const Launch& launch) {
  kernels::NDRange range;
  range.work_dim = launch.work_dim;
  auto reqd = kernel.info->reqd_work_group_size;
  std::array<std::size_t, 3> local = launch.local;
  if (local[0] == 0) local = reqd[0] ? reqd : choose_local(launch);
  for (int d = 0; d < 3; ++d) {
    range.global_offset[d] = launch.offset[d];
    range.global_size[d] = d < static_cast<int>(launch.work_dim) ? launch.global[d] : 1;
    range.local_size[d] = d < static_cast<int>(launch.work_dim) ? local[d] : 1;
    range.num_groups[d] = range.global_size[d] / range.local_size[d];
  }
  const std::size_t groups = range.num_groups[0] * range.num_groups[1] * range.num_groups[2];
  const auto& info = kernel.info->args;

  // Images: a descriptor over each one's bytes; samplers: their CLK_* bits.
  std::vector<kernels::ImageDesc> images(args.size());
  std::vector<void*> slots(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    slots[i] = a.data;
    if (a.image && a.data) {
      const ImageShape& shape = *a.image;
      kernels::ImageDesc& d = images[i];
      d.data = a.data;
      d.width = shape.width;
      d.height = shape.height;
      d.depth = shape.depth;
      d.array_size = shape.array_size;
      d.row_pitch = shape.row_pitch;
      d.slice_pitch = shape.slice_pitch;
      d.channel_order = shape.format.image_channel_order;
      d.channel_data_type = shape.format.image_channel_data_type;
      d.element_size = static_cast<std::uint32_t>(shape.element_size);
      d.image_type = shape.type;
      slots[i] = &d;
    } else if (a.sampler_bits) {
      slots[i] = reinterpret_cast<void*>(static_cast<std::uintptr_t>(a.sampler_bits));
    }
  }
  ThreadPool& pool = ThreadPool::instance();
  // Each thread fills its own state when it first runs a chunk of this
  // launch: its allocations and first touches stay on that thread.
  std::vector<ThreadState> states(pool.size());
  auto prepare = [&](ThreadState& st) {
    st.args.resize(args.size());
    st.pointers.resize(args.size());
    st.locals.resize(args.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
      const auto& a = args[i];
      if (info[i].kind == kernels::ArgKind::LocalPointer) {
        st.locals[i] = local_block(a.local_size);
        st.pointers[i] = st.locals[i].get();
        st.args[i] = &st.pointers[i];
      } else if (info[i].kind == kernels::ArgKind::Value) {
        st.args[i] = const_cast<void*>(a.value);
      } else {  // a buffer's data, an image's descriptor, a sampler's bits
        st.pointers[i] = slots[i];
        st.args[i] = &st.pointers[i];
      }
    }
    if (kernel.info->static_local_bytes)
      st.static_local = local_block(kernel.info->static_local_bytes);
    st.ready = true;
  };
  const std::size_t ng0 = range.num_groups[0], ng1 = range.num_groups[1];
  pool.parallel_for(groups, [&](std::size_t begin, std::size_t end, std::size_t t) {
    ThreadState& st = states[t];
    if (!st.ready) prepare(st);
    std::size_t id[3] = {begin % ng0, (begin / ng0) % ng1, begin / (ng0 * ng1)};
    for (std::size_t g = begin; g < end; ++g) {
      kernel.fn(st.args.data(), &range, id, st.static_local.get());
      if (++id[0] == ng0) {
        id[0] = 0;
        if (++id[1] == ng1) id[1] = 0, ++id[2];
      }
    }
  });
  return CL_COMPLETE;
}

}  // namespace parasol::backend::native
