// A device of another rank of the MPI job, as its node (parasol-node)
// reported it: every query answered with the node's Parasol's own answer,
// the name marked with the rank and host. Its programs are built on the
// node, on the node's own device, and its kernels made there, through the
// MPI layer (cluster_link.h); its launches go the same way
// (runtime/remote_kernel_command.h).
#include <CL/cl_parasol.h>

#include <cstring>
#include <string>

#include "backend/cluster.h"
#include "backend/device_backend.h"

namespace parasol::backend {
namespace {

class RemoteDevice final : public DeviceBackend {
 public:
  RemoteDevice(const RankDevices& rank, std::uint32_t index, DeviceAnswers answers)
      : answers_(std::move(answers)) {
    place_.rank = rank.rank;
    place_.device = index;
    facts_.type = scalar<cl_device_type>(CL_DEVICE_TYPE, CL_DEVICE_TYPE_DEFAULT);
    facts_.compute_units = scalar<cl_uint>(CL_DEVICE_MAX_COMPUTE_UNITS, 1);
    facts_.name = text(CL_DEVICE_NAME) + " (rank " + std::to_string(rank.rank) + " on " +
                  rank.host + ")";
    facts_.vendor_platform_name = text(CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL);
    facts_.base_align_bits = scalar<cl_uint>(CL_DEVICE_MEM_BASE_ADDR_ALIGN, 1024);
    facts_.max_alloc = scalar<cl_ulong>(CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0);
    facts_.global_mem = scalar<cl_ulong>(CL_DEVICE_GLOBAL_MEM_SIZE, 0);
    facts_.image_support = scalar<cl_bool>(CL_DEVICE_IMAGE_SUPPORT, CL_FALSE) == CL_TRUE;
    // Commands reach it when every rank of the job answered.
    const ClusterLink* link = cluster_link();
    facts_.available = link && link->carries_commands();
  }

  // From source: nothing happens on the node before the build.
  cl_int create_from_source(DeviceProgram&, const std::string&) const override {
    return CL_SUCCESS;
  }
  cl_int create_from_binary(DeviceProgram&, std::span<const unsigned char>,
                            cl_program_binary_type&, std::string& log) const override {
    log = kNotCarried;
    return CL_INVALID_BINARY;
  }
  cl_int create_from_built_ins(DeviceProgram&, const std::string&, cl_build_status&,
                               cl_program_binary_type&) const override {
    return CL_DEVICE_NOT_AVAILABLE;
  }
  std::string built_in_kernels() const override { return text(CL_DEVICE_BUILT_IN_KERNELS); }
  BuildOutcome build(DeviceProgram& program, const std::string& source, bool from_source,
                     const std::string& options) const override {
    ClusterLink* link = cluster_link();
    if (!from_source || !link) return {false, false, kNotCarried};
    RemoteBuild built;
    link->build(place_, source, options, built);
    program.remote.reset();
    if (built.ok) {
      auto remote = std::make_shared<RemoteObject>();
      remote->place = place_;
      remote->id = built.id;
      remote->kernel_names = std::move(built.kernels);
      program.remote = std::move(remote);
    }
    return {built.ok, false, std::move(built.log)};
  }
  BuildOutcome compile(DeviceProgram&, const std::string&, const std::string&,
                       std::span<const CompileHeader>, std::vector<KernelSignature>&,
                       bool& read) const override {
    read = false;
    return {false, false, kNotCarried};
  }
  BuildOutcome link(DeviceProgram&, std::span<const DeviceProgram* const>, const std::string&,
                    bool) const override {
    return {false, false, kNotCarried};
  }
  std::vector<std::string> kernel_names(const DeviceProgram& program) const override {
    return program.remote ? program.remote->kernel_names : std::vector<std::string>{};
  }
  std::vector<unsigned char> binary(const DeviceProgram&) const override { return {}; }
  std::size_t global_variable_bytes(const DeviceProgram&) const override { return 0; }
  bool reads_kernels() const override { return false; }
  std::string_view extra_options() const override { return {}; }
  DeviceKernel kernel(const DeviceProgram& program, const std::string& name,
                      cl_int& err) const override {
    ClusterLink* link = cluster_link();
    if (!program.remote || !link) {
      err = CL_INVALID_PROGRAM_EXECUTABLE;
      return {};
    }
    RemoteKernelInfo info = link->create_kernel(place_, program.remote->id, name);
    err = info.err;
    if (err != CL_SUCCESS) return {};
    DeviceKernel k;
    k.remote = std::make_shared<RemoteObject>();
    k.remote->kind = RemoteObject::Kind::Kernel;
    k.remote->place = place_;
    k.remote->id = info.id;
    k.remote->info = info;
    return k;
  }
  const RemotePlace* remote_place() const override { return &place_; }
  std::vector<cl_image_format> image_formats(cl_mem_flags, cl_mem_object_type) const override {
    return {};
  }
  std::array<std::size_t, 3> image_max(cl_mem_object_type) const override { return {}; }

  bool has_vendor_extension(std::string_view name) const override {
    const std::string list = " " + text(CL_DEVICE_EXTENSIONS) + " ";
    return list.find(" " + std::string(name) + " ") != std::string::npos;
  }

  cl_int info(cl_device_info param, InfoOut& out, cl_platform_id) const override {
    switch (param) {
      case CL_DEVICE_NAME: return out.string(facts_.name);
      case CL_DEVICE_AVAILABLE: return out.scalar(static_cast<cl_bool>(facts_.available));
      // Partitions are not carried to the node: the device offers none.
      case CL_DEVICE_PARTITION_PROPERTIES: return out.scalar(cl_device_partition_property{0});
      case CL_DEVICE_PARTITION_MAX_SUB_DEVICES: return out.scalar(cl_uint{0});
      case CL_DEVICE_PARTITION_AFFINITY_DOMAIN: return out.scalar(cl_device_affinity_domain{0});
      // The node's own vendor handles mean nothing in this process.
      case CL_DEVICE_VENDOR_PLATFORM_PARASOL: return out.scalar(cl_platform_id{nullptr});
      case CL_DEVICE_VENDOR_DEVICE_PARASOL: return out.scalar(cl_device_id{nullptr});
      default: break;
    }
    const std::vector<unsigned char>* bytes = answers_.find(param);
    if (!bytes) return CL_INVALID_VALUE;
    return out.bytes(bytes->data(), bytes->size());
  }

  cl_int partition(const cl_device_partition_property*,
                   std::vector<std::unique_ptr<DeviceBackend>>&) const override {
    return CL_INVALID_VALUE;  // no scheme offered (CL_DEVICE_PARTITION_PROPERTIES)
  }

 private:
  static constexpr const char* kNotCarried =
      "another rank's device builds programs from source only";

  template <typename T>
  T scalar(cl_device_info param, T fallback) const {
    const std::vector<unsigned char>* bytes = answers_.find(param);
    if (!bytes || bytes->size() != sizeof(T)) return fallback;
    T value;
    std::memcpy(&value, bytes->data(), sizeof value);
    return value;
  }
  // A string answer without its terminating NUL; empty when none.
  std::string text(cl_device_info param) const {
    const std::vector<unsigned char>* bytes = answers_.find(param);
    if (!bytes) return {};
    std::string s(bytes->begin(), bytes->end());
    return s.substr(0, s.find('\0'));
  }

  DeviceAnswers answers_;
  RemotePlace place_;
};

}  // namespace

RemoteObject::~RemoteObject() {
  ClusterLink* link = cluster_link();
  if (!link || id == 0) return;
  if (kind == Kind::Program)
    link->release_program(place.rank, id);
  else
    link->release_kernel(place.rank, id);
}

std::unique_ptr<DeviceBackend> remote_device(const RankDevices& rank, std::uint32_t index,
                                             DeviceAnswers answers) {
  return std::make_unique<RemoteDevice>(rank, index, std::move(answers));
}

}  // namespace parasol::backend
