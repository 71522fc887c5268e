#include "runtime/remote_kernel_command.h"

#include <algorithm>

#include "backend/cluster.h"
#include "runtime/trace.h"
#include "util/error_name.h"
#include "util/log.h"

namespace parasol::runtime {

RemoteKernelCommand::RemoteKernelCommand(core::Kernel* kernel, core::KernelArgs args,
                                         const NDRange& range, core::Device* device)
    : kernel_(kernel), args_(std::move(args)), range_(range), device_(device) {}

void RemoteKernelCommand::launch_task(core::Event& event) {
  backend::ClusterLink* link = backend::cluster_link();
  const backend::RemotePlace* place = device_->backend().remote_place();
  const backend::RemoteObject* remote = kernel_->remote_for(device_);
  backend::RemoteLaunch launch;
  launch.kernel = remote ? remote->id : 0;
  launch.work_dim = range_.work_dim;
  launch.offset = range_.offset;
  launch.global = range_.global;
  launch.local = range_.local;
  SmallVector<starpu_data_handle_t, 4> handles;
  SmallVector<starpu_data_access_mode, 4> modes;
  const auto& info = kernel_->arg_info();
  cl_int refused = (!link || !place || !remote) ? CL_INVALID_PROGRAM_EXECUTABLE : CL_SUCCESS;
  for (std::size_t i = 0; i < args_.size() && refused == CL_SUCCESS; ++i) {
    const core::KernelArg& a = args_[i];
    backend::RemoteArg& r = launch.args.emplace_back();
    switch (a.kind) {
      case core::KernelArg::Kind::Value:
        r.kind = backend::RemoteArg::Kind::Value;
        r.bytes.assign(reinterpret_cast<const unsigned char*>(a.bytes.data()),
                       reinterpret_cast<const unsigned char*>(a.bytes.data()) + a.bytes.size());
        break;
      case core::KernelArg::Kind::Local:
        r.kind = backend::RemoteArg::Kind::Local;
        r.local_size = a.local_size;
        break;
      case core::KernelArg::Kind::Buffer: {
        if (!a.buffer) {
          r.kind = backend::RemoteArg::Kind::NullBuffer;
          break;
        }
        // As on this process's devices (KernelCommand): read-only when the
        // kernel cannot write it.
        const bool read_only = (info[i].type_qualifier & CL_KERNEL_ARG_TYPE_CONST) ||
                               info[i].address == CL_KERNEL_ARG_ADDRESS_CONSTANT ||
                               (a.buffer->flags() & CL_MEM_READ_ONLY);
        backend::BufferStorage& storage = a.buffer->storage();
        r.kind = backend::RemoteArg::Kind::Buffer;
        r.handle = storage.handle();
        r.storage = storage.remote_id();
        r.storage_size = storage.size();
        r.offset = a.buffer->origin();
        r.size = a.buffer->size();
        r.written = !read_only;
        const starpu_data_access_mode mode = read_only ? STARPU_R : STARPU_RW;
        auto at = std::find(handles.begin(), handles.end(), r.handle);
        if (at == handles.end()) {
          handles.push_back(r.handle);
          modes.push_back(mode);
        } else {
          auto& m = modes[static_cast<std::size_t>(at - handles.begin())];
          m = static_cast<starpu_data_access_mode>(m | mode);
        }
        break;
      }
      default:  // images and samplers are not carried to a node
        refused = CL_INVALID_OPERATION;
        break;
    }
  }
  if (refused != CL_SUCCESS) {
    log::error("kernel ", kernel_->name(), " on ", device_->label(), " not run: ",
               refused == CL_INVALID_OPERATION
                   ? "images and samplers are not carried to another rank's device"
                   : "the kernel is not on the node");
    event.complete(refused);  // may destroy this command: nothing after
    return;
  }
  launch.place = *place;
  claim_ = DataLeases::instance().claim(handles, modes);
  demand_ = backend::WorkerDemand::raise(backend::workers_holding(handles));
  event.set_executed_on(device_);
  event.set_running();
  link->launch(std::move(launch), [this, &event](cl_int status, const std::string& why) {
    claim_.release();
    demand_.drop();
    if (status < 0)
      log::error("kernel ", kernel_->name(), " on ", device_->label(), " failed (",
                 error_name(status), ")", why.empty() ? "" : ": ", why);
    if (trace::enabled()) trace::record(event, kernel_->name().c_str(), 0, status);
    event.complete(status);  // may destroy this command: nothing after
  });
}

}  // namespace parasol::runtime
