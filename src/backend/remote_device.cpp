// A device of another rank of the MPI job, as its node (parasol-node)
// reported it: every query answered with the node's Parasol's own answer,
// the name marked with the rank and host. Its commands are not carried to
// the node yet, so the device reports itself unavailable
// (CL_DEVICE_AVAILABLE false) and no context takes it (icd/context_api.cpp):
// an application never gets to enqueue on it.
#include <CL/cl_parasol.h>

#include <cstring>
#include <string>

#include "backend/device_backend.h"

namespace parasol::backend {
namespace {

class RemoteDevice final : public DeviceBackend {
 public:
  RemoteDevice(const RankDevices& rank, DeviceAnswers answers) : answers_(std::move(answers)) {
    facts_.type = scalar<cl_device_type>(CL_DEVICE_TYPE, CL_DEVICE_TYPE_DEFAULT);
    facts_.compute_units = scalar<cl_uint>(CL_DEVICE_MAX_COMPUTE_UNITS, 1);
    facts_.name = text(CL_DEVICE_NAME) + " (rank " + std::to_string(rank.rank) + " on " +
                  rank.host + ")";
    facts_.vendor_platform_name = text(CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL);
    facts_.base_align_bits = scalar<cl_uint>(CL_DEVICE_MEM_BASE_ADDR_ALIGN, 1024);
    facts_.max_alloc = scalar<cl_ulong>(CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0);
    facts_.global_mem = scalar<cl_ulong>(CL_DEVICE_GLOBAL_MEM_SIZE, 0);
    facts_.image_support = scalar<cl_bool>(CL_DEVICE_IMAGE_SUPPORT, CL_FALSE) == CL_TRUE;
    facts_.available = false;
  }

  // Nothing runs on it yet: no context holds it, so none of these is asked
  // for; each answers as for a device that cannot take the work.
  cl_int create_from_source(DeviceProgram&, const std::string&) const override {
    return CL_DEVICE_NOT_AVAILABLE;
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
  BuildOutcome build(DeviceProgram&, const std::string&, bool, const std::string&) const override {
    return {false, false, kNotCarried};
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
  std::vector<std::string> kernel_names(const DeviceProgram&) const override { return {}; }
  std::vector<unsigned char> binary(const DeviceProgram&) const override { return {}; }
  std::size_t global_variable_bytes(const DeviceProgram&) const override { return 0; }
  bool reads_kernels() const override { return false; }
  std::string_view extra_options() const override { return {}; }
  DeviceKernel kernel(const DeviceProgram&, const std::string&, cl_int& err) const override {
    err = CL_INVALID_PROGRAM_EXECUTABLE;
    return {};
  }
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
      "commands on another rank's devices are not carried yet";

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
};

}  // namespace

std::unique_ptr<DeviceBackend> remote_device(const RankDevices& rank, DeviceAnswers answers) {
  return std::make_unique<RemoteDevice>(rank, std::move(answers));
}

}  // namespace parasol::backend
