// What differs between Parasol's kinds of device, behind one interface: a
// vendor's device re-exported (vendor_device.cpp), driven through its
// vendor's OpenCL; Parasol's native CPU device (native/native_device.cpp),
// whose programs kernels-pass compiles and whose kernels run on a StarPU CPU
// worker; and a device of another rank of an MPI job (remote_device.cpp),
// which answers queries with what its node reported and whose node builds
// its programs and makes its kernels. The layers above ask a device's
// backend, or read its traits (vendor_traits.h); they never ask which kind
// it is, except that a launch on a device whose commands another process
// runs (remote_place()) goes there, a context queue's kernel placed over
// the ranks first (runtime/rank_choice.h).
#pragma once

#include <CL/cl.h>

#include <array>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend/cluster_link.h"
#include "backend/kernel_signature.h"
#include "backend/native/native_compiler.h"
#include "backend/starpu_runtime.h"
#include "backend/vendor_handle.h"
#include "util/info_out.h"

namespace parasol::backend {

// What a device is, fixed when Parasol finds it.
struct DeviceFacts {
  cl_device_type type = 0;
  cl_uint compute_units = 1;
  std::string name;
  std::string vendor_platform_name;  // "Parasol" for the native device
  cl_uint base_align_bits = 1024;
  cl_ulong max_alloc = 0;
  // What StarPU may use there (its STARPU_LIMIT_*_MEM limits included).
  cl_ulong global_mem = 0;
  bool image_support = false;
  // It takes commands (CL_DEVICE_AVAILABLE): false for another rank's
  // device whose node was given up; no context holds such a device.
  bool available = true;
};

// What lives on a node for a remote device (backend/remote_device.cpp): a
// program built there, or a kernel made there; the node lets it go when
// the last holder here does.
struct RemoteObject {
  enum class Kind { Program, Kernel } kind = Kind::Program;
  RemotePlace place;
  std::uint64_t id = 0;
  std::vector<std::string> kernel_names;  // a program's
  RemoteKernelInfo info;                  // a kernel's
  RemoteObject() = default;
  RemoteObject(const RemoteObject&) = delete;
  RemoteObject& operator=(const RemoteObject&) = delete;
  ~RemoteObject();
};

// One device's form of a program: a vendor's program object, or the native
// device's executable, compiled object or library.
struct DeviceProgram {
  VendorProgram vendor;
  std::shared_ptr<native::NativeProgram> native;
  std::vector<unsigned char> native_object;
  std::shared_ptr<RemoteObject> remote;  // another rank's device's
};

// The outcome of a build, compile or link on one device.
struct BuildOutcome {
  bool ok = false;
  bool invalid_options = false;  // the device's compiler refused the options
  std::string log;
};

// clCompileProgram's input header: its include name, its source, and the
// header program's form on the same device.
struct CompileHeader {
  const std::string& name;
  const std::string& source;
  const DeviceProgram& program;
};

// One kernel of a program on one device: the vendor's, or the native one.
struct DeviceKernel {
  VendorKernel vendor;
  std::shared_ptr<native::NativeKernel> native;
  std::shared_ptr<RemoteObject> remote;  // another rank's device's
};

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;

  const DeviceFacts& facts() const { return facts_; }

  // Programs. core/program.h keeps each device's status, options and log.
  // From source: the vendor's program object (the native device compiles
  // at build time); CL_SUCCESS or the vendor's error.
  virtual cl_int create_from_source(DeviceProgram& program, const std::string& source) const = 0;
  // From a binary: CL_SUCCESS or CL_INVALID_BINARY, and what it holds.
  virtual cl_int create_from_binary(DeviceProgram& program, std::span<const unsigned char> binary,
                                    cl_program_binary_type& type, std::string& log) const = 0;
  // The device's built-in kernels `names` (';'-separated, each one the
  // device lists): CL_SUCCESS or the vendor's error; status and type are
  // the vendor's (a vendor may want the program built before its kernels
  // are made).
  virtual cl_int create_from_built_ins(DeviceProgram& program, const std::string& names,
                                       cl_build_status& status,
                                       cl_program_binary_type& type) const = 0;
  // CL_DEVICE_BUILT_IN_KERNELS: ';'-separated, empty when none.
  virtual std::string built_in_kernels() const = 0;
  // An executable; from_source false: the program came from an executable
  // binary.
  virtual BuildOutcome build(DeviceProgram& program, const std::string& source, bool from_source,
                             const std::string& options) const = 0;
  // A compiled object. kernels: their signatures, when the compile read them.
  virtual BuildOutcome compile(DeviceProgram& program, const std::string& source,
                               const std::string& options,
                               std::span<const CompileHeader> headers,
                               std::vector<KernelSignature>& kernels, bool& read) const = 0;
  // inputs: compiled objects or libraries of this device.
  virtual BuildOutcome link(DeviceProgram& out, std::span<const DeviceProgram* const> inputs,
                            const std::string& options, bool create_library) const = 0;
  virtual std::vector<std::string> kernel_names(const DeviceProgram& program) const = 0;
  virtual std::vector<unsigned char> binary(const DeviceProgram& program) const = 0;
  // CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE of an executable.
  virtual std::size_t global_variable_bytes(const DeviceProgram& program) const = 0;
  // Whether its compiler is Parasol's own front end, whose builds read the
  // kernels' signatures (else the program is read beside the build).
  virtual bool reads_kernels() const = 0;
  // Options its compiler needs beyond the application's.
  virtual std::string_view extra_options() const = 0;
  // Where its commands run when another process runs them (a device of
  // another rank: its node, runtime/remote_kernel_command.h); null for a
  // device of this process.
  virtual const RemotePlace* remote_place() const { return nullptr; }

  // The kernel `name` of an executable; err: CL_SUCCESS, or why not.
  virtual DeviceKernel kernel(const DeviceProgram& program, const std::string& name,
                              cl_int& err) const = 0;

  // clGetSupportedImageFormats for images of `type` made with `flags`.
  virtual std::vector<cl_image_format> image_formats(cl_mem_flags flags,
                                                     cl_mem_object_type type) const = 0;
  // The largest image of `type`: width, height (or layers of a 1D array),
  // depth (or layers of a 2D array), in pixels.
  virtual std::array<std::size_t, 3> image_max(cl_mem_object_type type) const = 0;
  // Whether the device reports a vendor's extension (the native device
  // reports none of theirs).
  virtual bool has_vendor_extension(std::string_view name) const = 0;
  // clGetDeviceInfo for the queries Parasol does not answer the same way
  // for every device (icd/device_api.cpp answers those). parasol: Parasol's
  // platform. CL_INVALID_VALUE for a query the device does not know.
  virtual cl_int info(cl_device_info param, InfoOut& out, cl_platform_id parasol) const = 0;

  // clCreateSubDevices: the backends of the sub-devices `properties` asks
  // for, in the vendor's order, or the vendor's error (the spec's, for the
  // native device). A sub-device's backend answers the queries about its
  // partition (compute units, partition type, ...) and builds for the
  // device that runs its commands: its root device.
  virtual cl_int partition(const cl_device_partition_property* properties,
                           std::vector<std::unique_ptr<DeviceBackend>>& out) const = 0;

 protected:
  DeviceFacts facts_;
};

// A vendor device, the StarPU OpenCL worker's.
std::unique_ptr<DeviceBackend> vendor_device(const VendorWorker& worker);
// Device `index` of another rank of the MPI job (remote_device.cpp), as its
// node answered the queries about it.
std::unique_ptr<DeviceBackend> remote_device(const RankDevices& rank, std::uint32_t index,
                                             DeviceAnswers answers);

}  // namespace parasol::backend

namespace parasol::backend::native {

// The native CPU device; its traits (vendor_traits.h) say what it lacks of a
// vendor's.
std::unique_ptr<DeviceBackend> native_device();
VendorTraits native_traits();

}  // namespace parasol::backend::native
