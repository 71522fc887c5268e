// Buffer entry points: creation, sub-buffers, info, and the transfer
// commands (read, write, copy, fill, their *Rect forms, map, unmap,
// migrate). Every transfer goes through enqueue_host(): validated here,
// performed by runtime::HostCommand on the main-RAM copies StarPU keeps
// coherent.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "core/buffer.h"
#include "core/command_queue.h"
#include "icd/api.h"
#include "util/info_out.h"
#include "icd/mem_transfers.h"
#include "icd/rect_overlap.h"
#include "icd/validate.h"
#include "runtime/host_command.h"
#include "runtime/initial_placement.h"
#include "runtime/migrate_command.h"
#include "runtime/submit.h"

namespace parasol::icd {
namespace {

using core::Buffer;
using core::CommandQueue;
using core::Context;
using core::Ref;
using runtime::HostAccess;
using runtime::HostAccesses;

Produced<cl_mem> create_buffer(const char* function, cl_context context, cl_mem_flags flags,
                               size_t size, void* host_ptr) {
  auto* ctx = checked<Context>(context);
  PARASOL_REFUSE_IF(!ctx, CL_INVALID_CONTEXT, "not a live Parasol context");
  if (cl_int err = check_mem_flags(function, flags)) return err;
  if (!(flags & kAccessFlags)) flags |= CL_MEM_READ_WRITE;
  bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  if (wants_ptr != (host_ptr != nullptr))
    return refuse(function, CL_INVALID_HOST_PTR,
                  wants_ptr ? "host_ptr is null" : "host_ptr given without USE_/COPY_HOST_PTR");
  cl_ulong largest = 0;
  for (auto* d : ctx->devices()) largest = std::max(largest, d->max_mem_alloc_size());
  if (size == 0 || size > largest)
    return refuse(function, CL_INVALID_BUFFER_SIZE, "size ", size,
                  " is 0 or above every device's CL_DEVICE_MAX_MEM_ALLOC_SIZE");

  void* user_memory = (flags & CL_MEM_USE_HOST_PTR) ? host_ptr : nullptr;
  auto storage = std::make_shared<backend::BufferStorage>(size, user_memory);
  if (!storage->valid())
    return refuse(function, CL_MEM_OBJECT_ALLOCATION_FAILURE, "cannot allocate ", size, " bytes");
  if (flags & CL_MEM_COPY_HOST_PTR) std::memcpy(storage->host(), host_ptr, size);
  if (wants_ptr) runtime::place_initial_contents(*ctx, storage);
  auto* buffer = core::create<Buffer>(ctx, flags, size, user_memory, std::move(storage));
  return buffer->handle();
}

cl_int check_range(const char* function, const Buffer& b, size_t offset, size_t size) {
  if (size == 0 || offset > b.size() || size > b.size() - offset)
    return refuse(function, CL_INVALID_VALUE, "region [", offset, ", +", size,
                  ") is empty or outside the ", b.size(), "-byte buffer");
  return CL_SUCCESS;
}

// Validates a *Rect region against a buffer; fills in default pitches.
cl_int check_rect(const char* function, const Buffer& b, const size_t* origin,
                  const size_t* region, size_t& row_pitch, size_t& slice_pitch) {
  if (!origin || !region) return refuse(function, CL_INVALID_VALUE, "origin or region is null");
  if (region[0] == 0 || region[1] == 0 || region[2] == 0)
    return refuse(function, CL_INVALID_VALUE, "a region dimension is 0");
  if (row_pitch == 0) row_pitch = region[0];
  if (slice_pitch == 0) slice_pitch = region[1] * row_pitch;
  if (row_pitch < region[0] || slice_pitch < region[1] * row_pitch || slice_pitch % row_pitch)
    return refuse(function, CL_INVALID_VALUE, "invalid row or slice pitch");
  size_t last = (origin[2] + region[2] - 1) * slice_pitch + (origin[1] + region[1] - 1) * row_pitch +
                origin[0] + region[0];
  if (last > b.size())
    return refuse(function, CL_INVALID_VALUE, "rectangle ends at byte ", last,
                  " beyond the buffer's ", b.size());
  return CL_SUCCESS;
}

}  // namespace

cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size,
                                  void* host_ptr, cl_int* errcode_ret) {
  return produce<cl_mem>(errcode_ret,
                         [&] { return create_buffer(__func__, context, flags, size, host_ptr); });
}

cl_mem CL_API_CALL clCreateBufferWithProperties(cl_context context,
                                                const cl_mem_properties* properties,
                                                cl_mem_flags flags, size_t size,
                                                void* host_ptr, cl_int* errcode_ret) {
  return produce<cl_mem>(errcode_ret, [&]() -> Produced<cl_mem> {
    PARASOL_REFUSE_IF(properties && properties[0] != 0, CL_INVALID_PROPERTY,
                      "no buffer property is supported");
    Produced<cl_mem> made = create_buffer(__func__, context, flags, size, host_ptr);
    if (made.value) Buffer::from(made.value)->set_properties(property_list(properties));
    return made;
  });
}

cl_mem CL_API_CALL clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags,
                                     cl_buffer_create_type buffer_create_type,
                                     const void* buffer_create_info, cl_int* errcode_ret) {
  return produce<cl_mem>(errcode_ret, [&]() -> Produced<cl_mem> {
    auto* parent = checked<Buffer>(buffer);
    PARASOL_REFUSE_IF(!parent || parent->parent() || parent->image(), CL_INVALID_MEM_OBJECT,
                      "not a live Parasol buffer, or a sub-buffer or an image");
    if (cl_int err = check_mem_flags(__func__, flags)) return err;
    PARASOL_REFUSE_IF(flags & kHostPtrFlags, CL_INVALID_VALUE,
                      "host pointer flags are inherited, not given, for sub-buffers");
    cl_mem_flags pf = parent->flags();
    PARASOL_REFUSE_IF(((pf & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) ||
                          ((pf & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))),
                      CL_INVALID_VALUE, "access flags conflict with the parent's");
    PARASOL_REFUSE_IF(((pf & CL_MEM_HOST_WRITE_ONLY) && (flags & CL_MEM_HOST_READ_ONLY)) ||
                          ((pf & CL_MEM_HOST_READ_ONLY) && (flags & CL_MEM_HOST_WRITE_ONLY)) ||
                          ((pf & CL_MEM_HOST_NO_ACCESS) &&
                           (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY))),
                      CL_INVALID_VALUE, "host access flags conflict with the parent's");
    PARASOL_REFUSE_IF(buffer_create_type != CL_BUFFER_CREATE_TYPE_REGION, CL_INVALID_VALUE,
                      "buffer_create_type must be CL_BUFFER_CREATE_TYPE_REGION");
    PARASOL_REFUSE_IF(!buffer_create_info, CL_INVALID_VALUE, "buffer_create_info is null");
    const auto* region = static_cast<const cl_buffer_region*>(buffer_create_info);
    PARASOL_REFUSE_IF(region->size == 0, CL_INVALID_BUFFER_SIZE, "region size is 0");
    PARASOL_REFUSE_IF(region->origin > parent->size() ||
                          region->size > parent->size() - region->origin,
                      CL_INVALID_VALUE, "region outside the parent buffer");
    bool aligned = false;
    for (auto* d : parent->context()->devices())
      aligned |= region->origin % std::max<cl_uint>(1, d->mem_base_addr_align_bits() / 8) == 0;
    PARASOL_REFUSE_IF(!aligned, CL_MISALIGNED_SUB_BUFFER_OFFSET, "origin ", region->origin,
                      " is aligned for no device of the context");
    if (!(flags & kAccessFlags)) flags |= pf & kAccessFlags;
    if (!(flags & kHostAccessFlags)) flags |= pf & kHostAccessFlags;
    flags |= pf & kHostPtrFlags;
    auto* sub = core::create<Buffer>(parent, flags, region->origin, region->size);
    return sub->handle();
  });
}

cl_int CL_API_CALL clRetainMemObject(cl_mem memobj) {
  return retain_handle<Buffer>(__func__, memobj, CL_INVALID_MEM_OBJECT);
}

cl_int CL_API_CALL clReleaseMemObject(cl_mem memobj) {
  return release_handle<Buffer>(__func__, memobj, CL_INVALID_MEM_OBJECT);
}

cl_int CL_API_CALL clGetMemObjectInfo(cl_mem memobj, cl_mem_info param_name,
                                      size_t param_value_size, void* param_value,
                                      size_t* param_value_size_ret) {
  auto* b = checked<Buffer>(memobj);
  PARASOL_REFUSE_IF(!b, CL_INVALID_MEM_OBJECT, "not a live Parasol buffer");
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  switch (param_name) {
    case CL_MEM_TYPE:
      return out.scalar(b->image() ? b->image()->type : cl_mem_object_type{CL_MEM_OBJECT_BUFFER});
    case CL_MEM_FLAGS: return out.scalar(b->flags());
    case CL_MEM_SIZE: return out.scalar(b->size());
    case CL_MEM_HOST_PTR: return out.scalar(b->host_ptr());
    case CL_MEM_MAP_COUNT: return out.scalar(b->map_count());
    case CL_MEM_REFERENCE_COUNT: return out.scalar(b->api_ref_count());
    case CL_MEM_CONTEXT: return out.scalar(b->context()->handle());
    case CL_MEM_ASSOCIATED_MEMOBJECT:
      return out.scalar(b->parent() ? b->parent()->handle() : cl_mem{nullptr});
    case CL_MEM_OFFSET:
      return out.scalar(b->parent() && !b->image() ? b->origin() : size_t{0});
    case CL_MEM_USES_SVM_POINTER: return out.scalar(cl_bool{CL_FALSE});
    case CL_MEM_PROPERTIES:
      return out.bytes(b->properties().data(), b->properties().size() * sizeof(cl_mem_properties));
    default:
      return refuse(__func__, CL_INVALID_VALUE, "unknown param_name 0x", std::hex, param_name);
  }
}

// No Parasol device offers pipes (CL_DEVICE_PIPE_SUPPORT): no memory object is one.
cl_int CL_API_CALL clGetPipeInfo(cl_mem pipe, cl_pipe_info, size_t, void*, size_t*) {
  return refuse(__func__, CL_INVALID_MEM_OBJECT,
                checked<Buffer>(pipe) ? "not a pipe" : "not a live Parasol memory object");
}

cl_int CL_API_CALL clSetMemObjectDestructorCallback(cl_mem memobj,
                                                    void(CL_CALLBACK* pfn_notify)(cl_mem, void*),
                                                    void* user_data) {
  auto* b = checked<Buffer>(memobj);
  PARASOL_REFUSE_IF(!b, CL_INVALID_MEM_OBJECT, "not a live Parasol buffer");
  PARASOL_REFUSE_IF(!pfn_notify, CL_INVALID_VALUE, "pfn_notify is null");
  b->add_destructor_callback(pfn_notify, user_data);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue command_queue, cl_mem buffer,
                                       cl_bool blocking_read, size_t offset, size_t size,
                                       void* ptr, cl_uint num_events_in_wait_list,
                                       const cl_event* event_wait_list, cl_event* event) {
  CommandQueue* q;
  Buffer* b;
  if (cl_int err = check_queue_mem(__func__, command_queue, buffer, MemKind::Buffer, q, b)) return err;
  if (cl_int err = check_range(__func__, *b, offset, size)) return err;
  PARASOL_REFUSE_IF(!ptr, CL_INVALID_VALUE, "ptr is null");
  if (cl_int err = check_host_read(__func__, *b)) return err;
  return enqueue_host(
      __func__, q, CL_COMMAND_READ_BUFFER, size, {{b, STARPU_R}}, {}, blocking_read,
      num_events_in_wait_list, event_wait_list, event,
      runtime::VendorTransfer{runtime::VendorTransfer::Kind::Read, offset, size, ptr});
}

cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue command_queue, cl_mem buffer,
                                        cl_bool blocking_write, size_t offset, size_t size,
                                        const void* ptr, cl_uint num_events_in_wait_list,
                                        const cl_event* event_wait_list, cl_event* event) {
  CommandQueue* q;
  Buffer* b;
  if (cl_int err = check_queue_mem(__func__, command_queue, buffer, MemKind::Buffer, q, b)) return err;
  if (cl_int err = check_range(__func__, *b, offset, size)) return err;
  PARASOL_REFUSE_IF(!ptr, CL_INVALID_VALUE, "ptr is null");
  if (cl_int err = check_host_write(__func__, *b)) return err;
  // A non-blocking write may read ptr until it completes (the spec's rule).
  return enqueue_host(
      __func__, q, CL_COMMAND_WRITE_BUFFER, size, {{b, write_mode(*b, offset, size)}},
      {}, blocking_write, num_events_in_wait_list, event_wait_list, event,
      runtime::VendorTransfer{runtime::VendorTransfer::Kind::Write, offset, size,
                              const_cast<void*>(ptr)});
}

cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue command_queue, cl_mem src_buffer,
                                       cl_mem dst_buffer, size_t src_offset, size_t dst_offset,
                                       size_t size, cl_uint num_events_in_wait_list,
                                       const cl_event* event_wait_list, cl_event* event) {
  CommandQueue* q;
  Buffer *src, *dst;
  if (cl_int err = check_queue_mem(__func__, command_queue, src_buffer, MemKind::Buffer, q, src)) return err;
  if (cl_int err = check_queue_mem(__func__, command_queue, dst_buffer, MemKind::Buffer, q, dst)) return err;
  if (cl_int err = check_range(__func__, *src, src_offset, size)) return err;
  if (cl_int err = check_range(__func__, *dst, dst_offset, size)) return err;
  if (&src->storage() == &dst->storage()) {
    size_t a = src->origin() + src_offset, b = dst->origin() + dst_offset;
    PARASOL_REFUSE_IF(a < b + size && b < a + size, CL_MEM_COPY_OVERLAP,
                      "source and destination regions overlap");
  }
  return enqueue_host(
      __func__, q, CL_COMMAND_COPY_BUFFER, size,
      {{src, STARPU_R}, {dst, write_mode(*dst, dst_offset, size)}}, {},
      CL_FALSE, num_events_in_wait_list, event_wait_list, event,
      runtime::VendorTransfer{runtime::VendorTransfer::Kind::Copy, src_offset, size, nullptr,
                              dst_offset});
}

cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue command_queue, cl_mem buffer,
                                       const void* pattern, size_t pattern_size, size_t offset,
                                       size_t size, cl_uint num_events_in_wait_list,
                                       const cl_event* event_wait_list, cl_event* event) {
  CommandQueue* q;
  Buffer* b;
  if (cl_int err = check_queue_mem(__func__, command_queue, buffer, MemKind::Buffer, q, b)) return err;
  PARASOL_REFUSE_IF(!pattern, CL_INVALID_VALUE, "pattern is null");
  PARASOL_REFUSE_IF(pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)),
                    CL_INVALID_VALUE, "pattern_size must be 1, 2, 4, ..., 128");
  PARASOL_REFUSE_IF(offset % pattern_size || size % pattern_size, CL_INVALID_VALUE,
                    "offset and size must be multiples of pattern_size");
  if (cl_int err = check_range(__func__, *b, offset, size)) return err;
  // The pattern is read during this call only (the command keeps a copy).
  runtime::VendorTransfer fill{runtime::VendorTransfer::Kind::Fill, offset, size,
                               const_cast<void*>(pattern)};
  fill.pattern_size = pattern_size;
  return enqueue_host(__func__, q, CL_COMMAND_FILL_BUFFER, size,
                      {{b, write_mode(*b, offset, size)}}, {}, CL_FALSE,
                      num_events_in_wait_list, event_wait_list, event, fill);
}

namespace {

// The one path of clEnqueueReadBufferRect and clEnqueueWriteBufferRect: a
// box copied between a buffer's main-RAM copy and host memory.
cl_int enqueue_host_rect(const char* function, bool read, cl_command_queue command_queue,
                         cl_mem buffer, cl_bool blocking, const size_t* buffer_origin,
                         const size_t* host_origin, const size_t* region,
                         size_t buffer_row_pitch, size_t buffer_slice_pitch,
                         size_t host_row_pitch, size_t host_slice_pitch, void* ptr,
                         cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                         cl_event* event) {
  CommandQueue* q;
  Buffer* b;
  if (cl_int err = check_queue_mem(function, command_queue, buffer, MemKind::Buffer, q, b)) return err;
  PARASOL_REFUSE_IF(!ptr || !host_origin, CL_INVALID_VALUE, "ptr or host_origin is null");
  if (cl_int err = check_rect(function, *b, buffer_origin, region, buffer_row_pitch,
                              buffer_slice_pitch))
    return err;
  if (cl_int err = check_host_pitches(function, region, host_row_pitch, host_slice_pitch))
    return err;
  if (cl_int err = read ? check_host_read(function, *b) : check_host_write(function, *b))
    return err;
  return enqueue_box_transfer(
      function, read ? CL_COMMAND_READ_BUFFER_RECT : CL_COMMAND_WRITE_BUFFER_RECT, read, q, b,
      {buffer_origin, buffer_row_pitch, buffer_slice_pitch, host_origin, host_row_pitch,
       host_slice_pitch, region},
      blocking, ptr, num_events_in_wait_list, event_wait_list, event);
}

}  // namespace

cl_int CL_API_CALL clEnqueueReadBufferRect(
    cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_read,
    const size_t* buffer_origin, const size_t* host_origin, const size_t* region,
    size_t buffer_row_pitch, size_t buffer_slice_pitch, size_t host_row_pitch,
    size_t host_slice_pitch, void* ptr, cl_uint num_events_in_wait_list,
    const cl_event* event_wait_list, cl_event* event) {
  return enqueue_host_rect(__func__, true, command_queue, buffer, blocking_read, buffer_origin,
                           host_origin, region, buffer_row_pitch, buffer_slice_pitch,
                           host_row_pitch, host_slice_pitch, ptr, num_events_in_wait_list,
                           event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueWriteBufferRect(
    cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_write,
    const size_t* buffer_origin, const size_t* host_origin, const size_t* region,
    size_t buffer_row_pitch, size_t buffer_slice_pitch, size_t host_row_pitch,
    size_t host_slice_pitch, const void* ptr, cl_uint num_events_in_wait_list,
    const cl_event* event_wait_list, cl_event* event) {
  // The host memory is only read: the cast serves the shared path.
  return enqueue_host_rect(__func__, false, command_queue, buffer, blocking_write, buffer_origin,
                           host_origin, region, buffer_row_pitch, buffer_slice_pitch,
                           host_row_pitch, host_slice_pitch, const_cast<void*>(ptr),
                           num_events_in_wait_list, event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueCopyBufferRect(
    cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_buffer,
    const size_t* src_origin, const size_t* dst_origin, const size_t* region,
    size_t src_row_pitch, size_t src_slice_pitch, size_t dst_row_pitch, size_t dst_slice_pitch,
    cl_uint num_events_in_wait_list, const cl_event* event_wait_list, cl_event* event) {
  CommandQueue* q;
  Buffer *src, *dst;
  if (cl_int err = check_queue_mem(__func__, command_queue, src_buffer, MemKind::Buffer, q, src)) return err;
  if (cl_int err = check_queue_mem(__func__, command_queue, dst_buffer, MemKind::Buffer, q, dst)) return err;
  if (cl_int err = check_rect(__func__, *src, src_origin, region, src_row_pitch, src_slice_pitch))
    return err;
  if (cl_int err = check_rect(__func__, *dst, dst_origin, region, dst_row_pitch, dst_slice_pitch))
    return err;
  // The pitches are resolved here (check_rect: 0 stands for the default).
  PARASOL_REFUSE_IF(src == dst && src_row_pitch != dst_row_pitch &&
                        src_slice_pitch != dst_slice_pitch,
                    CL_INVALID_VALUE, "copy within one buffer with both pitches different");
  return enqueue_box_copy(__func__, CL_COMMAND_COPY_BUFFER_RECT, q, src, dst,
                          {src_origin, src_row_pitch, src_slice_pitch, dst_origin, dst_row_pitch,
                           dst_slice_pitch, region},
                          num_events_in_wait_list, event_wait_list, event);
}

void* CL_API_CALL clEnqueueMapBuffer(cl_command_queue command_queue, cl_mem buffer,
                                     cl_bool blocking_map, cl_map_flags map_flags, size_t offset,
                                     size_t size, cl_uint num_events_in_wait_list,
                                     const cl_event* event_wait_list, cl_event* event,
                                     cl_int* errcode_ret) {
  void* mapped = nullptr;
  cl_int err = [&]() -> cl_int {
    CommandQueue* q;
    Buffer* b;
    if (cl_int e = check_queue_mem(__func__, command_queue, buffer, MemKind::Buffer, q, b)) return e;
    if (cl_int e = check_range(__func__, *b, offset, size)) return e;
    cl_int e = CL_SUCCESS;
    mapped = map_bytes(__func__, CL_COMMAND_MAP_BUFFER, q, b, blocking_map, map_flags, offset,
                       size, num_events_in_wait_list, event_wait_list, event, e);
    return e;
  }();
  if (errcode_ret) *errcode_ret = err;
  return err == CL_SUCCESS ? mapped : nullptr;
}

cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue command_queue, cl_mem memobj,
                                           void* mapped_ptr, cl_uint num_events_in_wait_list,
                                           const cl_event* event_wait_list, cl_event* event) {
  CommandQueue* q;
  Buffer* b;
  if (cl_int err = check_queue_mem(__func__, command_queue, memobj, MemKind::Any, q, b)) return err;
  Buffer::Mapping m;
  PARASOL_REFUSE_IF(!mapped_ptr || !b->take_mapping(mapped_ptr, m), CL_INVALID_VALUE,
                    "mapped_ptr is not a pointer this buffer mapped");
  bool wrote = m.flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION);
  if (!wrote)
    return enqueue_host(__func__, q, CL_COMMAND_UNMAP_MEM_OBJECT, 0, {}, [] { return CL_COMPLETE; },
                        CL_FALSE, num_events_in_wait_list, event_wait_list, event);
  if (!m.staging)  // USE_HOST_PTR: written in place
    return enqueue_host(__func__, q, CL_COMMAND_UNMAP_MEM_OBJECT, 0,
                        {{b, write_mode(*b, m.offset, m.size)}}, [] { return CL_COMPLETE; },
                        CL_FALSE, num_events_in_wait_list, event_wait_list, event);
  // The user's bytes, kept aside in the staging before StarPU could refresh
  // main RAM, written over the mapped region only: a write (by the device
  // holding the buffer, else in main RAM), its form keeping the staging.
  runtime::VendorTransfer form{runtime::VendorTransfer::Kind::Write, m.offset, m.size,
                               m.staging.get()};
  form.owned_host = m.staging;
  return enqueue_host(__func__, q, CL_COMMAND_UNMAP_MEM_OBJECT, m.size,
                      {{b, write_mode(*b, m.offset, m.size)}}, {}, CL_FALSE,
                      num_events_in_wait_list, event_wait_list, event, std::move(form));
}

cl_int CL_API_CALL clEnqueueMigrateMemObjects(cl_command_queue command_queue,
                                              cl_uint num_mem_objects, const cl_mem* mem_objects,
                                              cl_mem_migration_flags flags,
                                              cl_uint num_events_in_wait_list,
                                              const cl_event* event_wait_list, cl_event* event) {
  auto* q = checked<CommandQueue>(command_queue);
  PARASOL_REFUSE_IF(!q, CL_INVALID_COMMAND_QUEUE, "not a live Parasol queue");
  PARASOL_REFUSE_IF(num_mem_objects == 0 || !mem_objects, CL_INVALID_VALUE, "no memory objects");
  PARASOL_REFUSE_IF(flags & ~(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED),
                    CL_INVALID_VALUE, "unknown migration flags");
  std::vector<Ref<Buffer>> buffers;
  HostAccesses accesses;
  std::size_t bytes = 0;
  for (cl_uint i = 0; i < num_mem_objects; ++i) {
    auto* b = checked<Buffer>(mem_objects[i]);
    PARASOL_REFUSE_IF(!b, CL_INVALID_MEM_OBJECT, "mem_objects[", i, "] is not a live buffer");
    PARASOL_REFUSE_IF(b->context() != q->context(), CL_INVALID_CONTEXT,
                      "mem_objects[", i, "] belongs to another context");
    buffers.emplace_back(b);
    accesses.push_back({b, STARPU_R});
    bytes += b->size();
  }
  WaitList waits;
  if (cl_int err = check_wait_list(__func__, num_events_in_wait_list, event_wait_list,
                                   q->context(), waits))
    return err;
  std::unique_ptr<runtime::Command> work;
  if (flags & CL_MIGRATE_MEM_OBJECT_HOST)
    work = std::make_unique<runtime::HostCommand>(std::move(accesses), [] { return CL_COMPLETE; },
                                                  bytes);
  else if (q->device())
    work = std::make_unique<runtime::MigrateCommand>(
        q->device(), std::move(buffers), flags & CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED);
  // On a context queue the next command's device is not known yet: nothing to move.
  give_event(runtime::submit(*q, CL_COMMAND_MIGRATE_MEM_OBJECTS, std::move(work), waits), event);
  return CL_SUCCESS;
}

}  // namespace parasol::icd
