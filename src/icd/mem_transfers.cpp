#include "icd/mem_transfers.h"

#include <new>

#include "icd/rect_overlap.h"
#include "runtime/submit.h"

namespace parasol::icd {

using core::Buffer;
using core::CommandQueue;
using core::Ref;
using runtime::HostAccesses;

namespace {

bool more_than_one(cl_mem_flags flags) { return (flags & (flags - 1)) != 0; }

}  // namespace

cl_int check_mem_flags(const char* function, cl_mem_flags flags) {
  if (flags & ~(kAccessFlags | kHostPtrFlags | kHostAccessFlags))
    return refuse(function, CL_INVALID_VALUE, "unknown flag bits 0x", std::hex, flags);
  if (more_than_one(flags & kAccessFlags))
    return refuse(function, CL_INVALID_VALUE, "more than one of READ_WRITE/WRITE_ONLY/READ_ONLY");
  if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return refuse(function, CL_INVALID_VALUE, "USE_HOST_PTR with ALLOC_ or COPY_HOST_PTR");
  if (more_than_one(flags & kHostAccessFlags))
    return refuse(function, CL_INVALID_VALUE, "more than one CL_MEM_HOST_* flag");
  return CL_SUCCESS;
}


cl_int check_queue_mem(const char* function, cl_command_queue queue, cl_mem mem, MemKind kind,
                       CommandQueue*& q, Buffer*& b) {
  q = checked<CommandQueue>(queue);
  if (!q) return refuse(function, CL_INVALID_COMMAND_QUEUE, "not a live Parasol queue");
  b = checked<Buffer>(mem);
  if (!b) return refuse(function, CL_INVALID_MEM_OBJECT, "not a live Parasol memory object");
  if (kind == MemKind::Buffer && b->image())
    return refuse(function, CL_INVALID_MEM_OBJECT, "an image, not a buffer");
  if (kind == MemKind::Image && !b->image())
    return refuse(function, CL_INVALID_MEM_OBJECT, "a buffer, not an image");
  if (b->context() != q->context())
    return refuse(function, CL_INVALID_CONTEXT, "queue and memory object of different contexts");
  return CL_SUCCESS;
}

cl_int check_host_pitches(const char* function, const size_t* region, size_t& row_pitch,
                          size_t& slice_pitch) {
  if (row_pitch == 0) row_pitch = region[0];
  if (slice_pitch == 0) slice_pitch = region[1] * row_pitch;
  if (row_pitch < region[0] || slice_pitch < region[1] * row_pitch)
    return refuse(function, CL_INVALID_VALUE, "invalid host pitches");
  return CL_SUCCESS;
}


namespace {

// A transfer's event enqueued: waited for if blocking, handed out if asked.
cl_int finish_host(Ref<core::Event> e, cl_bool blocking, cl_event* event) {
  cl_int result = CL_SUCCESS;
  if (blocking && e->wait() < 0) result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  give_event(std::move(e), event);
  return result;
}

}  // namespace

cl_int enqueue_host(const char* function, CommandQueue* q, cl_command_type type,
                    std::size_t bytes, HostAccesses accesses, std::function<cl_int()> body,
                    cl_bool blocking, cl_uint num_events, const cl_event* wait_list,
                    cl_event* event, std::optional<runtime::VendorTransfer> vendor_form) {
  WaitList waits;
  if (cl_int err = check_wait_list(function, num_events, wait_list, q->context(), waits))
    return err;
  Ref<core::Event> e = runtime::submit_transfer(*q, type, std::move(accesses), std::move(body),
                                                bytes, std::move(vendor_form), waits, blocking,
                                                event != nullptr);
  return e ? finish_host(std::move(e), blocking, event) : CL_SUCCESS;
}

starpu_data_access_mode write_mode(const Buffer& b, size_t offset, size_t size) {
  return (!b.parent() && offset == 0 && size == b.size()) ? STARPU_W : STARPU_RW;
}

cl_int check_host_read(const char* function, const Buffer& b) {
  if (b.flags() & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS))
    return refuse(function, CL_INVALID_OPERATION, "the memory object denies host reads");
  return CL_SUCCESS;
}
cl_int check_host_write(const char* function, const Buffer& b) {
  if (b.flags() & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS))
    return refuse(function, CL_INVALID_OPERATION, "the memory object denies host writes");
  return CL_SUCCESS;
}


cl_int enqueue_box_transfer(const char* function, cl_command_type type, bool read,
                            CommandQueue* q, Buffer* b, const HostBox& box, cl_bool blocking,
                            void* ptr, cl_uint num_events, const cl_event* wait_list,
                            cl_event* event) {
  // Read during this call only (the command keeps a copy).
  const runtime::VendorRect rect{
      {{box.mem_origin[0], box.mem_origin[1], box.mem_origin[2]}, box.mem_row_pitch,
       box.mem_slice_pitch},
      {{box.host_origin[0], box.host_origin[1], box.host_origin[2]}, box.host_row_pitch,
       box.host_slice_pitch},
      {box.region[0], box.region[1], box.region[2]}};
  const size_t bytes = box.region[0] * box.region[1] * box.region[2];
  // OpenCL's buffer boxes have slice pitches that are multiples of their row
  // pitches; an image's host memory (or its own, CL_MEM_USE_HOST_PTR) need
  // not: such a box is copied in main RAM, never handed to a vendor.
  if (box.host_slice_pitch % box.host_row_pitch || box.mem_slice_pitch % box.mem_row_pitch)
    return enqueue_host(
        function, q, type, bytes, {{b, read ? STARPU_R : STARPU_RW}},
        [b, rect, ptr, read] {  // the command holds b
          auto* host = static_cast<std::byte*>(ptr);
          if (read)
            runtime::copy_rect(host, rect.other, b->host_bytes(), rect.buffer, rect.region);
          else
            runtime::copy_rect(b->host_bytes(), rect.buffer, host, rect.other, rect.region);
          return cl_int{CL_COMPLETE};
        },
        blocking, num_events, wait_list, event);
  runtime::VendorTransfer form{
      read ? runtime::VendorTransfer::Kind::ReadRect : runtime::VendorTransfer::Kind::WriteRect, 0,
      bytes, ptr};
  form.rect = &rect;
  return enqueue_host(function, q, type, bytes, {{b, read ? STARPU_R : STARPU_RW}}, {}, blocking,
                      num_events, wait_list, event, form);
}

cl_int enqueue_box_copy(const char* function, cl_command_type type, CommandQueue* q, Buffer* src,
                        Buffer* dst, const CopyBox& box, cl_uint num_events,
                        const cl_event* wait_list, cl_event* event) {
  const bool one_storage = &src->storage() == &dst->storage();
  const RectPlacement from{src->origin() + box.src_origin[2] * box.src_slice_pitch +
                               box.src_origin[1] * box.src_row_pitch + box.src_origin[0],
                           box.src_row_pitch, box.src_slice_pitch};
  const RectPlacement to{dst->origin() + box.dst_origin[2] * box.dst_slice_pitch +
                             box.dst_origin[1] * box.dst_row_pitch + box.dst_origin[0],
                         box.dst_row_pitch, box.dst_slice_pitch};
  // One buffer, or sub-buffers of one: refused only where a byte is in both
  // boxes (the byte spans from first to last byte may meet while the boxes
  // interleave, side by side or row by row).
  PARASOL_REFUSE_IF(one_storage && rect_boxes_overlap(from, to, box.region), CL_MEM_COPY_OVERLAP,
                    "source and destination regions overlap");
  const runtime::VendorRect rect{
      {{box.src_origin[0], box.src_origin[1], box.src_origin[2]}, box.src_row_pitch, box.src_slice_pitch},
      {{box.dst_origin[0], box.dst_origin[1], box.dst_origin[2]}, box.dst_row_pitch, box.dst_slice_pitch},
      {box.region[0], box.region[1], box.region[2]}};
  const size_t bytes = box.region[0] * box.region[1] * box.region[2];
  // Vendors check a copy within one of their buffers more coarsely (PoCL
  // 3.1 refuses boxes whose extents meet though they share no byte, and
  // different pitches), and sub-buffers of one parent reach a vendor as that
  // one buffer: such a copy is done on the main-RAM copy, never handed to a
  // vendor. So is a box whose slice pitch is not a multiple of its row
  // pitch (an image's own memory may have such pitches; a vendor's buffer
  // boxes may not). The others keep the direct path.
  const bool unusual_pitches = box.src_slice_pitch % box.src_row_pitch ||
                               box.dst_slice_pitch % box.dst_row_pitch;
  if (unusual_pitches ||
      (one_storage && (box.src_row_pitch != box.dst_row_pitch ||
                       box.src_slice_pitch != box.dst_slice_pitch ||
                       rect_extents_meet(from, to, box.region))))
    return enqueue_host(
        function, q, type, bytes, {{src, STARPU_R}, {dst, STARPU_RW}},
        [src, dst, rect] {  // the command holds both buffers
          runtime::copy_rect(dst->host_bytes(), rect.other, src->host_bytes(), rect.buffer,
                             rect.region);
          return cl_int{CL_COMPLETE};
        },
        CL_FALSE, num_events, wait_list, event);
  runtime::VendorTransfer form{runtime::VendorTransfer::Kind::CopyRect, 0, bytes};
  form.rect = &rect;
  return enqueue_host(function, q, type, bytes,
                      {{src, STARPU_R}, {dst, STARPU_RW}}, {}, CL_FALSE,
                      num_events, wait_list, event, form);
}


void* map_bytes(const char* function, cl_command_type type, CommandQueue* q, Buffer* b,
                cl_bool blocking, cl_map_flags flags, size_t offset, size_t size,
                cl_uint num_events, const cl_event* wait_list, cl_event* event, cl_int& err) {
  void* mapped = nullptr;
  err = [&]() -> cl_int {
    PARASOL_REFUSE_IF(flags & ~(CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION),
                      CL_INVALID_VALUE, "unknown map flags");
    PARASOL_REFUSE_IF((flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
                          (flags & (CL_MAP_READ | CL_MAP_WRITE)),
                      CL_INVALID_VALUE, "WRITE_INVALIDATE_REGION with READ or WRITE");
    if (flags & CL_MAP_READ)
      if (cl_int e = check_host_read(function, *b)) return e;
    if (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))
      if (cl_int e = check_host_write(function, *b)) return e;

    Buffer::Mapping m;
    m.offset = offset;
    m.size = size;
    m.flags = flags ? flags : CL_MAP_READ | CL_MAP_WRITE;
    // In place: the application's memory (CL_MEM_USE_HOST_PTR), and for a
    // map that only reads, the buffer's main-RAM bytes: no command may write a
    // mapped region (OpenCL 3.0, 5.5.4), so whatever StarPU brings to main
    // RAM meanwhile holds the same bytes there. A map for writing takes a
    // staging, whose unmap writes the mapped region only.
    const bool reads_only = m.flags == CL_MAP_READ;
    if ((b->flags() & CL_MEM_USE_HOST_PTR) || reads_only) {
      m.pointer = b->host_bytes() + offset;
    } else {
      m.staging = std::shared_ptr<std::byte[]>(new (std::nothrow) std::byte[size]);
      PARASOL_REFUSE_IF(!m.staging, CL_MAP_FAILURE, "cannot allocate ", size, " bytes to map");
      m.pointer = m.staging.get();
    }
    mapped = m.pointer;
    bool fetch = !(m.flags & CL_MAP_WRITE_INVALIDATE_REGION);
    auto staging = m.staging;
    b->add_mapping(std::move(m));
    // A read of the region into the mapped memory: by a device holding the
    // buffer (which stays there), else from main RAM, where StarPU brings it.
    // Not for a map for writing in place (CL_MEM_USE_HOST_PTR): its unmap
    // goes StarPU's way, which would fetch the whole buffer over bytes StarPU
    // never learnt of; it reads StarPU's way. The mapping keeps the staging
    // until the unmap, which a blocking map returns before: only a
    // non-blocking one's form keeps it too.
    std::optional<runtime::VendorTransfer> vendor_form;
    if (fetch && (staging || reads_only)) {
      vendor_form =
          runtime::VendorTransfer{runtime::VendorTransfer::Kind::Read, offset, size, mapped};
      if (!blocking) vendor_form->owned_host = staging;
    }
    // An invalidating map into a staging reads nothing: no access, so the
    // buffer stays where it is (its unmap writes the region). In place it
    // keeps its read: the unmap's read-write access would otherwise fetch
    // the valid copy over what the application wrote there.
    HostAccesses accesses;
    if (fetch || !staging) accesses.push_back({b, STARPU_R});
    std::function<cl_int()> nothing_to_copy;
    if (!vendor_form) nothing_to_copy = [] { return CL_COMPLETE; };
    cl_int r = enqueue_host(function, q, type, fetch ? size : 0,
                            std::move(accesses), std::move(nothing_to_copy), blocking,
                            num_events, wait_list, event, vendor_form);
    if (r != CL_SUCCESS && r != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
      Buffer::Mapping undo;
      b->take_mapping(mapped, undo);
    }
    return r;
  }();
  return err == CL_SUCCESS ? mapped : nullptr;
}

}  // namespace parasol::icd
