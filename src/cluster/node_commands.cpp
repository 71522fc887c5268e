#include "cluster/node_commands.h"

#include <starpu_mpi.h>

#include <algorithm>
#include <cstring>

#include "cluster/local_device_answers.h"

namespace parasol::cluster {
namespace {

using RemoteArgKind = backend::RemoteArg::Kind;

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  if (size) clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  return log.substr(0, log.find('\0'));
}

std::vector<std::string> kernel_names(cl_program program) {
  std::size_t size = 0;
  clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size);
  std::string list(size, '\0');
  if (size) clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size, list.data(), nullptr);
  list = list.substr(0, list.find('\0'));
  std::vector<std::string> names;
  for (std::size_t at = 0; at < list.size();) {
    const std::size_t end = std::min(list.find(';', at), list.size());
    if (end > at) names.push_back(list.substr(at, end - at));
    at = end + 1;
  }
  return names;
}

// The kernel's arguments as this node's platform answers clGetKernelArgInfo.
void write_args(cl_kernel kernel, Writer& out) {
  const std::vector<backend::KernelArgInfo> args = backend::read_arg_info(kernel);
  out.u32(static_cast<std::uint32_t>(args.size()));
  for (const backend::KernelArgInfo& a : args)
    out.u32(a.address).u32(a.access).u64(a.type_qualifier).str(a.type_name).str(a.name);
}

// One buffer argument of a launch as the request gives it.
struct BufferArg {
  std::uint64_t storage = 0, storage_size = 0, offset = 0, size = 0;
  std::uint32_t written = 0;
  std::int64_t tag_in = -1, tag_out = -1;
};

}  // namespace

NodeCommands::NodeCommands(Reply reply) : reply_(std::move(reply)) {
  devices_ = local_devices(why_);
  if (devices_.empty()) return;
  cl_int err = CL_SUCCESS;
  context_.reset(clCreateContext(nullptr, static_cast<cl_uint>(devices_.size()), devices_.data(),
                                 nullptr, nullptr, &err));
  if (!context_) {
    why_ = "no context over this machine's Parasol devices (error " + std::to_string(err) + ")";
    return;
  }
  for (cl_device_id d : devices_)
    queues_.emplace_back(clCreateCommandQueue(context_.get(), d, 0, &err));
}

void NodeCommands::run(std::span<const unsigned char> request) {
  Reader in(request);
  std::uint32_t op = 0;
  in.u32(op);
  Writer out;
  std::uint64_t id = 0;
  switch (static_cast<Op>(op)) {
    case Op::Start:
      mpi_started_ = starpu_mpi_init_comm(nullptr, nullptr, 0, MPI_COMM_WORLD) == 0;
      break;
    case Op::Stop:
      if (mpi_started_) starpu_mpi_shutdown();
      mpi_started_ = false;
      break;
    case Op::Build: build(in, out); break;
    case Op::CreateKernel: create_kernel(in, out); break;
    case Op::Launch: launch(in, out); break;
    case Op::ReleaseProgram:
      if (in.u64(id)) programs_.erase(id);
      break;
    case Op::ReleaseKernel:
      if (in.u64(id)) kernels_.erase(id);
      break;
    case Op::ReleaseStorage:
      if (in.u64(id)) storages_.erase(id);
      break;
  }
  if (!out.out().empty()) send(out);
}

void NodeCommands::build(Reader& in, Writer& out) {
  std::uint64_t id = 0;
  std::uint32_t device = 0;
  std::string source, options;
  in.u64(id);
  in.u32(device);
  in.str(source);
  in.str(options);
  out.u64(id);
  if (!in.ok() || device >= devices_.size() || !context_) {
    out.u32(0).str("the node could not read the build request").u64(0).u32(0);
    return;
  }
  const char* text = source.c_str();
  const std::size_t length = source.size();
  cl_int err = CL_SUCCESS;
  OwnedProgram program(clCreateProgramWithSource(context_.get(), 1, &text, &length, &err));
  if (!program) {
    out.u32(0).str("clCreateProgramWithSource failed on the node (error " + std::to_string(err) +
                   ")")
        .u64(0)
        .u32(0);
    return;
  }
  err = clBuildProgram(program.get(), 1, &devices_[device], options.c_str(), nullptr, nullptr);
  const std::string log = build_log(program.get(), devices_[device]);
  if (err != CL_SUCCESS) {
    out.u32(0).str(log.empty() ? "build failed (error " + std::to_string(err) + ")" : log);
    out.u64(0).u32(0);
    return;
  }
  const std::uint64_t program_id = next_id_++;
  const std::vector<std::string> names = kernel_names(program.get());
  programs_[program_id] = {std::move(program), devices_[device]};
  out.u32(1).str(log).u64(program_id).u32(static_cast<std::uint32_t>(names.size()));
  for (const std::string& n : names) out.str(n);
}

void NodeCommands::create_kernel(Reader& in, Writer& out) {
  std::uint64_t id = 0, program = 0;
  std::string name;
  in.u64(id);
  in.u64(program);
  in.str(name);
  out.u64(id);
  auto it = programs_.find(program);
  cl_int err = CL_INVALID_PROGRAM_EXECUTABLE;
  OwnedKernel kernel(it == programs_.end() || !in.ok()
                         ? nullptr
                         : clCreateKernel(it->second.first.get(), name.c_str(), &err));
  if (!kernel) {
    out.u32(static_cast<std::uint32_t>(err)).u64(0).u64(0).u64(0).u64(0).u64(0).u64(0).u64(0).u64(0);
    out.u32(0);
    return;
  }
  // The program's devices are the context's: its kernel answers for the
  // one it was built for.
  const cl_device_id device = it->second.second;
  std::size_t wgs = 0, reqd[3] = {0, 0, 0};
  clGetKernelWorkGroupInfo(kernel.get(), device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wgs, &wgs,
                           nullptr);
  clGetKernelWorkGroupInfo(kernel.get(), device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof reqd,
                           reqd, nullptr);
  // No __local argument is set yet: the kernel's own __local variables.
  std::size_t preferred = 1;
  cl_ulong private_mem = 0, local_mem = 0;
  clGetKernelWorkGroupInfo(kernel.get(), device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                           sizeof preferred, &preferred, nullptr);
  clGetKernelWorkGroupInfo(kernel.get(), device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof private_mem,
                           &private_mem, nullptr);
  clGetKernelWorkGroupInfo(kernel.get(), device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_mem,
                           &local_mem, nullptr);
  const std::uint64_t kernel_id = next_id_++;
  kernels_[kernel_id] = std::move(kernel);
  out.u32(CL_SUCCESS).u64(kernel_id).u64(wgs).u64(reqd[0]).u64(reqd[1]).u64(reqd[2]);
  out.u64(preferred).u64(private_mem).u64(local_mem);
  write_args(kernels_[kernel_id].get(), out);
}

NodeCommands::Storage* NodeCommands::storage(std::uint64_t id, std::size_t size) {
  auto it = storages_.find(id);
  if (it != storages_.end()) return it->second->size() == size ? it->second.get() : nullptr;
  cl_int err = CL_SUCCESS;
  OwnedMem mem(clCreateBuffer(context_.get(), CL_MEM_READ_WRITE, size, nullptr, &err));
  if (!mem) return nullptr;
  auto s = std::make_unique<Storage>(size);
  s->mem = std::move(mem);
  return storages_.emplace(id, std::move(s)).first->second.get();
}

void NodeCommands::launch(Reader& in, Writer& out) {
  std::uint64_t id = 0, kernel_id = 0;
  std::uint32_t device = 0, dims = 0, nargs = 0;
  std::uint64_t offset[3], global[3], local[3];
  in.u64(id);
  in.u32(device);
  in.u64(kernel_id);
  in.u32(dims);
  for (auto* v : {offset, global, local})
    for (int i = 0; i < 3; ++i) in.u64(v[i]);
  in.u32(nargs);
  out.u64(id);

  struct Arg {
    RemoteArgKind kind = RemoteArgKind::Value;
    std::vector<unsigned char> bytes;
    std::uint64_t local_size = 0;
    BufferArg buffer;
  };
  std::vector<Arg> args(in.ok() ? nargs : 0);
  for (Arg& a : args) {
    std::uint32_t kind = 0;
    in.u32(kind);
    a.kind = static_cast<RemoteArgKind>(kind);
    if (a.kind == RemoteArgKind::Value) {
      in.bytes(a.bytes);
    } else if (a.kind == RemoteArgKind::Local) {
      in.u64(a.local_size);
    } else if (a.kind == RemoteArgKind::Buffer) {
      BufferArg& b = a.buffer;
      in.u64(b.storage);
      in.u64(b.storage_size);
      in.u64(b.offset);
      in.u64(b.size);
      in.u32(b.written);
      in.i64(b.tag_in);
      in.i64(b.tag_out);
    }
  }
  auto kernel_it = kernels_.find(kernel_id);
  if (!in.done() || kernel_it == kernels_.end() || device >= devices_.size()) {
    out.u32(static_cast<std::uint32_t>(CL_INVALID_VALUE));
    return;
  }
  cl_kernel kernel = kernel_it->second.get();
  cl_command_queue queue = queues_[device].get();

  // The buffers' bytes, by StarPU-MPI from rank 0's handles, then into the
  // device's buffers.
  std::vector<Storage*> storages(args.size(), nullptr);
  std::vector<starpu_mpi_req> receives;
  cl_int status = CL_SUCCESS;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind != RemoteArgKind::Buffer) continue;
    storages[i] = storage(args[i].buffer.storage, args[i].buffer.storage_size);
    if (!storages[i]) {
      out.u32(static_cast<std::uint32_t>(CL_MEM_OBJECT_ALLOCATION_FAILURE));
      return;
    }
  }
  for (std::size_t i = 0; i < args.size(); ++i)
    if (storages[i] && args[i].buffer.tag_in >= 0) {
      starpu_mpi_req req;
      starpu_mpi_irecv(storages[i]->staging.handle, &req, 0, args[i].buffer.tag_in,
                       MPI_COMM_WORLD);
      receives.push_back(req);
    }
  // Rank 0 sends the bytes once the receives wait for them.
  Writer ready;
  ready.u64(id).u32(static_cast<std::uint32_t>(CL_SUBMITTED));
  send(ready);
  for (starpu_mpi_req& r : receives) starpu_mpi_wait(&r, MPI_STATUS_IGNORE);
  for (std::size_t i = 0; i < args.size() && status == CL_SUCCESS; ++i)
    if (storages[i] && args[i].buffer.tag_in >= 0) {
      Storage& st = *storages[i];
      starpu_data_acquire(st.staging.handle, STARPU_R);
      status = clEnqueueWriteBuffer(queue, st.mem.get(), CL_TRUE, 0, st.size(),
                                    st.staging.bytes.data(), 0, nullptr, nullptr);
      starpu_data_release(st.staging.handle);
    }

  std::vector<OwnedMem> windows;  // sub-buffers made for this launch
  for (std::size_t i = 0; i < args.size() && status == CL_SUCCESS; ++i) {
    const auto index = static_cast<cl_uint>(i);
    const Arg& a = args[i];
    switch (a.kind) {
      case RemoteArgKind::Value:
        status = clSetKernelArg(kernel, index, a.bytes.size(), a.bytes.data());
        break;
      case RemoteArgKind::Local:
        status = clSetKernelArg(kernel, index, a.local_size, nullptr);
        break;
      case RemoteArgKind::NullBuffer:
        status = clSetKernelArg(kernel, index, sizeof(cl_mem), nullptr);
        break;
      case RemoteArgKind::Buffer: {
        cl_mem mem = storages[i]->mem.get();
        if (a.buffer.offset != 0 || a.buffer.size != a.buffer.storage_size) {
          const cl_buffer_region region{a.buffer.offset, a.buffer.size};
          mem = clCreateSubBuffer(mem, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
          if (mem) windows.emplace_back(mem);
        }
        if (status == CL_SUCCESS) status = clSetKernelArg(kernel, index, sizeof mem, &mem);
        break;
      }
    }
  }
  if (status == CL_SUCCESS) {
    cl_event launched = nullptr;
    const std::size_t offsets[3] = {offset[0], offset[1], offset[2]};
    const std::size_t globals[3] = {global[0], global[1], global[2]};
    const std::size_t locals[3] = {local[0], local[1], local[2]};
    status = clEnqueueNDRangeKernel(queue, kernel, dims, offsets, globals,
                                    locals[0] ? locals : nullptr, 0, nullptr, &launched);
    OwnedEvent done(launched);
    if (status == CL_SUCCESS) {
      clWaitForEvents(1, &launched);
      cl_int run = CL_COMPLETE;
      clGetEventInfo(launched, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof run, &run, nullptr);
      if (run < 0) status = run;
    }
  }
  windows.clear();

  // What the kernel may have written goes back, behind the status: rank 0
  // receives it only after a success.
  std::vector<std::size_t> back;
  for (std::size_t i = 0; i < args.size() && status == CL_SUCCESS; ++i)
    if (storages[i] && args[i].buffer.tag_out >= 0) {
      Storage& st = *storages[i];
      starpu_data_acquire(st.staging.handle, STARPU_W);
      status = clEnqueueReadBuffer(queue, st.mem.get(), CL_TRUE, 0, st.size(),
                                   st.staging.bytes.data(), 0, nullptr, nullptr);
      starpu_data_release(st.staging.handle);
      back.push_back(i);
    }
  out.u32(static_cast<std::uint32_t>(status == CL_SUCCESS ? CL_COMPLETE : status));
  send(out);
  out.out().clear();
  if (status != CL_SUCCESS) return;
  std::vector<starpu_mpi_req> sends;
  for (std::size_t i : back) {
    starpu_mpi_req req;
    starpu_mpi_isend(storages[i]->staging.handle, &req, 0, args[i].buffer.tag_out,
                     MPI_COMM_WORLD);
    sends.push_back(req);
  }
  for (starpu_mpi_req& r : sends) starpu_mpi_wait(&r, MPI_STATUS_IGNORE);
}

}  // namespace parasol::cluster
