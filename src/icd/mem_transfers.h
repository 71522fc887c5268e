// What buffers and images share at the API: memory flags, the queue and
// memory-object check, and the one path of every host-side transfer
// command (enqueue_host()), with its rectangular and mapping forms. An
// image is a buffer to these (backend/image_shape.h): its commands address boxes of
// its bytes.
#pragma once

#include <CL/cl.h>

#include <functional>
#include <optional>

#include "core/buffer.h"
#include "core/command_queue.h"
#include "icd/validate.h"
#include "runtime/host_command.h"

namespace parasol::icd {

constexpr cl_mem_flags kAccessFlags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
constexpr cl_mem_flags kHostPtrFlags =
    CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
constexpr cl_mem_flags kHostAccessFlags =
    CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;

// The flags a buffer or image may be created with, or CL_INVALID_VALUE.
cl_int check_mem_flags(const char* function, cl_mem_flags flags);

// A queue and a memory object of the same context, of the kind the command
// takes, or the spec's error (CL_INVALID_MEM_OBJECT for the other kind).
enum class MemKind { Buffer, Image, Any };
cl_int check_queue_mem(const char* function, cl_command_queue queue, cl_mem mem, MemKind kind,
                       core::CommandQueue*& q, core::Buffer*& b);

cl_int check_host_read(const char* function, const core::Buffer& b);
cl_int check_host_write(const char* function, const core::Buffer& b);
// Fills in the default host pitches of a box and checks them.
cl_int check_host_pitches(const char* function, const size_t* region, size_t& row_pitch,
                          size_t& slice_pitch);

// W when the command overwrites the whole buffer (no transfer needed), else RW.
starpu_data_access_mode write_mode(const core::Buffer& b, size_t offset, size_t size);

// The one path of every host-side transfer command: a record, an event
// without a command object, or a runtime::HostCommand running body on the
// main-RAM copies StarPU keeps coherent. bytes: what the command moves
// (traces). vendor_form: how a device holding the data does it itself.
cl_int enqueue_host(const char* function, core::CommandQueue* q, cl_command_type type,
                    std::size_t bytes, runtime::HostAccesses accesses, std::function<cl_int()> body,
                    cl_bool blocking, cl_uint num_events, const cl_event* wait_list,
                    cl_event* event, std::optional<runtime::VendorTransfer> vendor_form = {});

// A box of bytes between a memory object and host memory (validated):
// origin, region and pitches in bytes.
struct HostBox {
  const size_t* mem_origin;
  size_t mem_row_pitch, mem_slice_pitch;
  const size_t* host_origin;
  size_t host_row_pitch, host_slice_pitch;
  const size_t* region;
};
cl_int enqueue_box_transfer(const char* function, cl_command_type type, bool read,
                            core::CommandQueue* q, core::Buffer* b, const HostBox& box,
                            cl_bool blocking, void* ptr, cl_uint num_events,
                            const cl_event* wait_list, cl_event* event);

// A box of bytes from one memory object to another (validated, overlap
// included): origins, region and pitches in bytes.
struct CopyBox {
  const size_t* src_origin;
  size_t src_row_pitch, src_slice_pitch;
  const size_t* dst_origin;
  size_t dst_row_pitch, dst_slice_pitch;
  const size_t* region;
};
cl_int enqueue_box_copy(const char* function, cl_command_type type, core::CommandQueue* q,
                        core::Buffer* src, core::Buffer* dst, const CopyBox& box,
                        cl_uint num_events, const cl_event* wait_list, cl_event* event);

// Maps bytes [offset, offset + size) of b (validated but for the flags):
// the mapped pointer, or null with err.
void* map_bytes(const char* function, cl_command_type type, core::CommandQueue* q,
                core::Buffer* b, cl_bool blocking, cl_map_flags flags, size_t offset, size_t size,
                cl_uint num_events, const cl_event* wait_list, cl_event* event, cl_int& err);

}  // namespace parasol::icd
