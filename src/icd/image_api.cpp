// Image and sampler entry points. An image is a buffer with a shape
// (backend/image_shape.h): its commands address boxes of its bytes and go the
// buffers' way (icd/mem_transfers.h); a kernel on a vendor device sees a
// vendor image mirroring the device's copy (backend/image_mirrors.h).
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "backend/image_shape.h"
#include "core/buffer.h"
#include "core/context.h"
#include "core/sampler.h"
#include "icd/api.h"
#include "util/info_out.h"
#include "icd/mem_transfers.h"
#include "icd/validate.h"

namespace parasol::icd {
namespace {

using core::Buffer;
using core::CommandQueue;
using core::Context;
using core::Device;
using backend::ImageShape;

std::vector<Device*> image_devices(const Context& ctx) {
  std::vector<Device*> out;
  for (Device* d : ctx.devices())
    if (d->image_support()) out.push_back(d);
  return out;
}

bool same_format(const cl_image_format& a, const cl_image_format& b) {
  return a.image_channel_order == b.image_channel_order &&
         a.image_channel_data_type == b.image_channel_data_type;
}

// The formats every image device of ctx takes for (flags, type).
std::vector<cl_image_format> context_formats(const Context& ctx, cl_mem_flags flags,
                                             cl_mem_object_type type) {
  std::vector<cl_image_format> common;
  bool first = true;
  for (Device* d : image_devices(ctx)) {
    std::vector<cl_image_format> mine = d->image_formats(flags, type);
    if (first) {
      common = std::move(mine);
      first = false;
      continue;
    }
    std::erase_if(common, [&](const cl_image_format& f) {
      return std::none_of(mine.begin(), mine.end(),
                          [&](const cl_image_format& g) { return same_format(f, g); });
    });
  }
  return common;
}

bool is_image_type(cl_mem_object_type t) { return backend::image_dimensions(t) != 0; }

// The shape clCreateImage describes, checked against the spec's rules and
// the context's devices; the buffer of a 1D image buffer in `over`.
cl_int image_shape(const char* function, const Context& ctx, cl_mem_flags flags,
                   const cl_image_format* format, const cl_image_desc* desc, void* host_ptr,
                   backend::ImageShape& shape, Buffer*& over) {
  if (!format) return refuse(function, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "image_format is null");
  shape.format = *format;
  shape.element_size = backend::element_size(*format);
  if (!shape.element_size)
    return refuse(function, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "channel order 0x", std::hex,
                  format->image_channel_order, " with channel type 0x",
                  format->image_channel_data_type, " is no OpenCL image format");
  if (!desc) return refuse(function, CL_INVALID_IMAGE_DESCRIPTOR, "image_desc is null");
  shape.type = desc->image_type;
  if (!is_image_type(shape.type))
    return refuse(function, CL_INVALID_IMAGE_DESCRIPTOR, "image_type 0x", std::hex,
                  desc->image_type, " is no image type");
  if (desc->num_mip_levels != 0 || desc->num_samples != 0)
    return refuse(function, CL_INVALID_IMAGE_DESCRIPTOR, "mip levels and samples must be 0");
  const cl_mem_object_type t = shape.type;
  const bool has_height = t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                          t == CL_MEM_OBJECT_IMAGE3D;
  shape.width = desc->image_width;
  shape.height = has_height ? desc->image_height : 1;
  shape.depth = t == CL_MEM_OBJECT_IMAGE3D ? desc->image_depth : 1;
  shape.array_size = shape.is_array() ? desc->image_array_size : 0;
  if (shape.width == 0 || shape.height == 0 || shape.depth == 0 ||
      (shape.is_array() && shape.array_size == 0))
    return refuse(function, CL_INVALID_IMAGE_DESCRIPTOR, "a dimension of the image is 0");
  // 1D image buffer: over a buffer of the context, which holds its pixels.
  over = nullptr;
  if (t == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
    over = checked<Buffer>(desc->buffer);
    if (!over || over->image() || over->context() != &ctx)
      return refuse(function, CL_INVALID_IMAGE_DESCRIPTOR,
                    "a 1D image buffer needs a buffer of the context");
    if (shape.width * shape.element_size > over->size())
      return refuse(function, CL_INVALID_IMAGE_SIZE, "the buffer holds fewer than ", shape.width,
                    " pixels");
    if (host_ptr) return refuse(function, CL_INVALID_HOST_PTR, "a 1D image buffer takes no host_ptr");
  } else if (desc->buffer) {
    // A 2D image from a buffer (OpenCL 2.0, cl_khr_image2d_from_buffer):
    // no Parasol device offers it.
    return refuse(function, t == CL_MEM_OBJECT_IMAGE2D ? CL_INVALID_OPERATION : CL_INVALID_IMAGE_DESCRIPTOR,
                  "only a 1D image buffer takes a buffer here");
  }
  // Pitches: the host memory's when given, else packed.
  const std::size_t packed_row = shape.width * shape.element_size;
  const bool layers_are_rows = t == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  std::size_t row = desc->image_row_pitch, slice = desc->image_slice_pitch;
  if (!host_ptr && (row || slice))
    return refuse(function, CL_INVALID_IMAGE_DESCRIPTOR, "pitches given without host_ptr");
  if (row == 0) row = packed_row;
  if (row < packed_row || row % shape.element_size)
    return refuse(function, CL_INVALID_IMAGE_DESCRIPTOR, "image_row_pitch ", row,
                  " is below the row's bytes or not a multiple of a pixel's");
  const auto extent = shape.extent();
  if (layers_are_rows) {
    // A 1D array's layers are its rows: the host's layer pitch.
    if (slice == 0) slice = row;
    if (slice < row) return refuse(function, CL_INVALID_IMAGE_DESCRIPTOR, "invalid image_slice_pitch");
    row = slice;
  } else if (extent[2] > 1) {
    if (slice == 0) slice = row * shape.height;
    if (slice < row * shape.height || slice % row)
      return refuse(function, CL_INVALID_IMAGE_DESCRIPTOR, "invalid image_slice_pitch");
  } else if (slice != 0 && (t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
                            t == CL_MEM_OBJECT_IMAGE2D)) {
    return refuse(function, CL_INVALID_IMAGE_DESCRIPTOR, "image_slice_pitch must be 0 for a ",
                  backend::image_dimensions(t), "D image");
  }
  shape.row_pitch = row;
  shape.slice_pitch = extent[2] > 1 ? slice : row * extent[1];
  // Pixels are packed unless the application's own memory holds them.
  if (!(flags & CL_MEM_USE_HOST_PTR)) {
    shape.row_pitch = packed_row;
    shape.slice_pitch = packed_row * extent[1];
  }
  // Every image device must take it.
  std::vector<Device*> devices = image_devices(ctx);
  if (devices.empty())
    return refuse(function, CL_INVALID_OPERATION, "no device of the context supports images");
  for (Device* d : devices) {
    const auto max = d->image_max(t);
    for (int i = 0; i < 3; ++i)
      if (extent[i] > max[i])
        return refuse(function, CL_INVALID_IMAGE_SIZE, "the image exceeds what ", d->label(),
                      " takes (", max[0], " x ", max[1], " x ", max[2], ")");
  }
  const auto formats = context_formats(ctx, flags & kAccessFlags, t);
  if (std::none_of(formats.begin(), formats.end(),
                   [&](const cl_image_format& f) { return same_format(f, *format); }))
    return refuse(function, CL_IMAGE_FORMAT_NOT_SUPPORTED,
                  "a device of the context does not take this format for this image type");
  return CL_SUCCESS;
}

Produced<cl_mem> create_image(const char* function, cl_context context, cl_mem_flags flags,
                              const cl_image_format* format, const cl_image_desc* desc,
                              void* host_ptr) {
  auto* ctx = checked<Context>(context);
  PARASOL_REFUSE_IF(!ctx, CL_INVALID_CONTEXT, "not a live Parasol context");
  if (cl_int err = check_mem_flags(function, flags)) return err;
  if (!(flags & kAccessFlags)) flags |= CL_MEM_READ_WRITE;
  const bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  backend::ImageShape shape;
  Buffer* over = nullptr;
  if (cl_int err = image_shape(function, *ctx, flags, format, desc, host_ptr, shape, over))
    return err;
  if (!over && wants_ptr != (host_ptr != nullptr))
    return refuse(function, CL_INVALID_HOST_PTR,
                  wants_ptr ? "host_ptr is null" : "host_ptr given without USE_/COPY_HOST_PTR");
  if (over) {
    PARASOL_REFUSE_IF(flags & kHostPtrFlags, CL_INVALID_VALUE,
                      "a 1D image buffer takes its buffer's host pointer flags");
    auto* image = core::create<Buffer>(over, flags | (over->flags() & kHostPtrFlags), shape);
    return image->handle();
  }
  void* user_memory = (flags & CL_MEM_USE_HOST_PTR) ? host_ptr : nullptr;
  auto storage = std::make_shared<backend::BufferStorage>(shape.bytes(), user_memory);
  if (!storage->valid())
    return refuse(function, CL_MEM_OBJECT_ALLOCATION_FAILURE, "cannot allocate ", shape.bytes(),
                  " bytes");
  if (flags & CL_MEM_COPY_HOST_PTR) {
    // From the application's pitches into packed rows.
    const auto e = shape.extent();
    const std::size_t row_bytes = e[0] * shape.element_size;
    const std::size_t host_row = desc->image_row_pitch ? desc->image_row_pitch : row_bytes;
    std::size_t host_slice = desc->image_slice_pitch;
    if (shape.type == CL_MEM_OBJECT_IMAGE1D_ARRAY) {
      const std::size_t layer = host_slice ? host_slice : host_row;
      for (std::size_t y = 0; y < e[1]; ++y)
        std::memcpy(storage->host() + y * shape.row_pitch,
                    static_cast<const unsigned char*>(host_ptr) + y * layer, row_bytes);
    } else {
      if (!host_slice) host_slice = host_row * e[1];
      for (std::size_t z = 0; z < e[2]; ++z)
        for (std::size_t y = 0; y < e[1]; ++y)
          std::memcpy(storage->host() + z * shape.slice_pitch + y * shape.row_pitch,
                      static_cast<const unsigned char*>(host_ptr) + z * host_slice + y * host_row,
                      row_bytes);
    }
  }
  auto* image = core::create<Buffer>(ctx, flags, shape, user_memory, std::move(storage));
  return image->handle();
}

// An image command's origin and region (in pixels, the extent's axes),
// checked against the image's type and extent.
cl_int check_box(const char* function, const backend::ImageShape& s, const size_t* origin,
                 const size_t* region) {
  if (!origin || !region) return refuse(function, CL_INVALID_VALUE, "origin or region is null");
  const auto e = s.extent();
  const int used = backend::image_dimensions(s.type);
  for (int i = 0; i < 3; ++i) {
    if (region[i] == 0) return refuse(function, CL_INVALID_VALUE, "region[", i, "] is 0");
    if (i >= used && (origin[i] != 0 || region[i] != 1))
      return refuse(function, CL_INVALID_VALUE, "a ", used, "D image takes origin[", i,
                    "] 0 and region[", i, "] 1");
    if (origin[i] > e[i] || region[i] > e[i] - origin[i])
      return refuse(function, CL_INVALID_VALUE, "the region leaves the image on axis ", i);
  }
  return CL_SUCCESS;
}

// The box's origin and region in bytes (x scaled by the pixel size).
struct ByteBox {
  size_t origin[3], region[3];
  ByteBox(const backend::ImageShape& s, const size_t* o, const size_t* r)
      : origin{o[0] * s.element_size, o[1], o[2]}, region{r[0] * s.element_size, r[1], r[2]} {}
};

// The host pitches of an image read or write: row and slice, or for a 1D
// array the layer pitch as the row's (its layers are rows).
cl_int host_pitches(const char* function, const backend::ImageShape& s, const size_t* region,
                    size_t& row_pitch, size_t& slice_pitch) {
  const int used = backend::image_dimensions(s.type);
  const bool has_slices = s.type == CL_MEM_OBJECT_IMAGE3D || s.type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
  if (!has_slices && s.type != CL_MEM_OBJECT_IMAGE1D_ARRAY && slice_pitch != 0)
    return refuse(function, CL_INVALID_VALUE, "slice_pitch must be 0 for a ", used, "D image");
  const size_t bytes[3] = {region[0] * s.element_size, region[1], region[2]};
  if (s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY) {
    // The layers (the box's rows) lie slice_pitch apart.
    if (slice_pitch == 0) slice_pitch = bytes[0];
    row_pitch = slice_pitch;
    slice_pitch = 0;
  }
  return check_host_pitches(function, bytes, row_pitch, slice_pitch);
}

cl_int enqueue_image_transfer(const char* function, bool read, cl_command_queue command_queue,
                              cl_mem image, cl_bool blocking, const size_t* origin,
                              const size_t* region, size_t row_pitch, size_t slice_pitch,
                              void* ptr, cl_uint num_events, const cl_event* wait_list,
                              cl_event* event) {
  CommandQueue* q;
  Buffer* b;
  if (cl_int err = check_queue_mem(function, command_queue, image, MemKind::Image, q, b)) return err;
  const backend::ImageShape& s = *b->image();
  if (cl_int err = check_box(function, s, origin, region)) return err;
  PARASOL_REFUSE_IF(!ptr, CL_INVALID_VALUE, "ptr is null");
  if (cl_int err = host_pitches(function, s, region, row_pitch, slice_pitch)) return err;
  if (cl_int err = read ? check_host_read(function, *b) : check_host_write(function, *b)) return err;
  const ByteBox box(s, origin, region);
  const size_t host_origin[3] = {0, 0, 0};
  return enqueue_box_transfer(function, read ? CL_COMMAND_READ_IMAGE : CL_COMMAND_WRITE_IMAGE,
                              read, q, b,
                              {box.origin, s.row_pitch, s.slice_pitch, host_origin, row_pitch,
                               slice_pitch, box.region},
                              blocking, ptr, num_events, wait_list, event);
}

}  // namespace

cl_int CL_API_CALL clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
                                              cl_mem_object_type image_type, cl_uint num_entries,
                                              cl_image_format* image_formats,
                                              cl_uint* num_image_formats) {
  auto* ctx = checked<Context>(context);
  PARASOL_REFUSE_IF(!ctx, CL_INVALID_CONTEXT, "not a live Parasol context");
  PARASOL_REFUSE_IF(num_entries == 0 && image_formats, CL_INVALID_VALUE,
                    "num_entries is 0 but image_formats is not null");
  PARASOL_REFUSE_IF(!is_image_type(image_type), CL_INVALID_VALUE, "image_type 0x", std::hex,
                    image_type, " is no image type");
  // CL_MEM_KERNEL_READ_AND_WRITE (OpenCL 2.0): formats a kernel may read and
  // write in one image, as the vendors say.
  if (cl_int err = check_mem_flags(__func__, flags & ~cl_mem_flags{CL_MEM_KERNEL_READ_AND_WRITE}))
    return err;
  const auto formats =
      context_formats(*ctx, flags & (kAccessFlags | CL_MEM_KERNEL_READ_AND_WRITE), image_type);
  if (image_formats)
    for (cl_uint i = 0; i < num_entries && i < formats.size(); ++i) image_formats[i] = formats[i];
  if (num_image_formats) *num_image_formats = static_cast<cl_uint>(formats.size());
  return CL_SUCCESS;
}

cl_mem CL_API_CALL clCreateImage(cl_context context, cl_mem_flags flags,
                                 const cl_image_format* image_format,
                                 const cl_image_desc* image_desc, void* host_ptr,
                                 cl_int* errcode_ret) {
  return produce<cl_mem>(errcode_ret, [&] {
    return create_image(__func__, context, flags, image_format, image_desc, host_ptr);
  });
}

cl_mem CL_API_CALL clCreateImageWithProperties(cl_context context,
                                               const cl_mem_properties* properties,
                                               cl_mem_flags flags,
                                               const cl_image_format* image_format,
                                               const cl_image_desc* image_desc, void* host_ptr,
                                               cl_int* errcode_ret) {
  return produce<cl_mem>(errcode_ret, [&]() -> Produced<cl_mem> {
    PARASOL_REFUSE_IF(properties && properties[0] != 0, CL_INVALID_PROPERTY,
                      "no image property is supported");
    Produced<cl_mem> made = create_image(__func__, context, flags, image_format, image_desc, host_ptr);
    if (made.value) Buffer::from(made.value)->set_properties(property_list(properties));
    return made;
  });
}

cl_mem CL_API_CALL clCreateImage2D(cl_context context, cl_mem_flags flags,
                                   const cl_image_format* image_format, size_t image_width,
                                   size_t image_height, size_t image_row_pitch, void* host_ptr,
                                   cl_int* errcode_ret) {
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = image_width;
  desc.image_height = image_height;
  desc.image_row_pitch = image_row_pitch;
  return produce<cl_mem>(errcode_ret, [&] {
    return create_image(__func__, context, flags, image_format, &desc, host_ptr);
  });
}

cl_mem CL_API_CALL clCreateImage3D(cl_context context, cl_mem_flags flags,
                                   const cl_image_format* image_format, size_t image_width,
                                   size_t image_height, size_t image_depth,
                                   size_t image_row_pitch, size_t image_slice_pitch,
                                   void* host_ptr, cl_int* errcode_ret) {
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE3D;
  desc.image_width = image_width;
  desc.image_height = image_height;
  desc.image_depth = image_depth;
  desc.image_row_pitch = image_row_pitch;
  desc.image_slice_pitch = image_slice_pitch;
  return produce<cl_mem>(errcode_ret, [&] {
    return create_image(__func__, context, flags, image_format, &desc, host_ptr);
  });
}

cl_int CL_API_CALL clGetImageInfo(cl_mem image, cl_image_info param_name,
                                  size_t param_value_size, void* param_value,
                                  size_t* param_value_size_ret) {
  auto* b = checked<Buffer>(image);
  PARASOL_REFUSE_IF(!b || !b->image(), CL_INVALID_MEM_OBJECT, "not a live Parasol image");
  const backend::ImageShape& s = *b->image();
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  const bool has_slices = s.type == CL_MEM_OBJECT_IMAGE3D || s.type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
  switch (param_name) {
    case CL_IMAGE_FORMAT: return out.scalar(s.format);
    case CL_IMAGE_ELEMENT_SIZE: return out.scalar(s.element_size);
    // A 1D array's layers are rows of the storage: its slice pitch is the
    // storage's row pitch.
    case CL_IMAGE_ROW_PITCH:
      return out.scalar(s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? s.width * s.element_size
                                                               : s.row_pitch);
    case CL_IMAGE_SLICE_PITCH:
      return out.scalar(s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? s.row_pitch
                        : has_slices                          ? s.slice_pitch
                                                              : size_t{0});
    case CL_IMAGE_WIDTH: return out.scalar(s.width);
    case CL_IMAGE_HEIGHT: return out.scalar(backend::image_dimensions(s.type) >= 2 && s.type != CL_MEM_OBJECT_IMAGE1D_ARRAY ? s.height : size_t{0});
    case CL_IMAGE_DEPTH: return out.scalar(s.type == CL_MEM_OBJECT_IMAGE3D ? s.depth : size_t{0});
    case CL_IMAGE_ARRAY_SIZE: return out.scalar(s.array_size);
    case CL_IMAGE_BUFFER:
      return out.scalar(s.type == CL_MEM_OBJECT_IMAGE1D_BUFFER ? b->parent()->handle() : cl_mem{nullptr});
    case CL_IMAGE_NUM_MIP_LEVELS:
    case CL_IMAGE_NUM_SAMPLES: return out.scalar(cl_uint{0});
    default:
      return refuse(__func__, CL_INVALID_VALUE, "unknown param_name 0x", std::hex, param_name);
  }
}

cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue command_queue, cl_mem image,
                                      cl_bool blocking_read, const size_t* origin,
                                      const size_t* region, size_t row_pitch, size_t slice_pitch,
                                      void* ptr, cl_uint num_events_in_wait_list,
                                      const cl_event* event_wait_list, cl_event* event) {
  return enqueue_image_transfer(__func__, true, command_queue, image, blocking_read, origin,
                                region, row_pitch, slice_pitch, ptr, num_events_in_wait_list,
                                event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue command_queue, cl_mem image,
                                       cl_bool blocking_write, const size_t* origin,
                                       const size_t* region, size_t input_row_pitch,
                                       size_t input_slice_pitch, const void* ptr,
                                       cl_uint num_events_in_wait_list,
                                       const cl_event* event_wait_list, cl_event* event) {
  // The host memory is only read: the cast serves the shared path.
  return enqueue_image_transfer(__func__, false, command_queue, image, blocking_write, origin,
                                region, input_row_pitch, input_slice_pitch, const_cast<void*>(ptr),
                                num_events_in_wait_list, event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue command_queue, cl_mem src_image,
                                      cl_mem dst_image, const size_t* src_origin,
                                      const size_t* dst_origin, const size_t* region,
                                      cl_uint num_events_in_wait_list,
                                      const cl_event* event_wait_list, cl_event* event) {
  CommandQueue* q;
  Buffer *src, *dst;
  if (cl_int err = check_queue_mem(__func__, command_queue, src_image, MemKind::Image, q, src))
    return err;
  if (cl_int err = check_queue_mem(__func__, command_queue, dst_image, MemKind::Image, q, dst))
    return err;
  const backend::ImageShape &s = *src->image(), &d = *dst->image();
  PARASOL_REFUSE_IF(!same_format(s.format, d.format), CL_IMAGE_FORMAT_MISMATCH,
                    "the images' formats differ");
  if (cl_int err = check_box(__func__, s, src_origin, region)) return err;
  if (cl_int err = check_box(__func__, d, dst_origin, region)) return err;
  const ByteBox from(s, src_origin, region), to(d, dst_origin, region);
  return enqueue_box_copy(__func__, CL_COMMAND_COPY_IMAGE, q, src, dst,
                          {from.origin, s.row_pitch, s.slice_pitch, to.origin, d.row_pitch,
                           d.slice_pitch, from.region},
                          num_events_in_wait_list, event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueCopyImageToBuffer(cl_command_queue command_queue, cl_mem src_image,
                                              cl_mem dst_buffer, const size_t* src_origin,
                                              const size_t* region, size_t dst_offset,
                                              cl_uint num_events_in_wait_list,
                                              const cl_event* event_wait_list, cl_event* event) {
  CommandQueue* q;
  Buffer *src, *dst;
  if (cl_int err = check_queue_mem(__func__, command_queue, src_image, MemKind::Image, q, src))
    return err;
  if (cl_int err = check_queue_mem(__func__, command_queue, dst_buffer, MemKind::Buffer, q, dst))
    return err;
  const backend::ImageShape& s = *src->image();
  if (cl_int err = check_box(__func__, s, src_origin, region)) return err;
  const ByteBox from(s, src_origin, region);
  const size_t row = from.region[0], slice = row * region[1];
  PARASOL_REFUSE_IF(dst_offset > dst->size() || slice * region[2] > dst->size() - dst_offset,
                    CL_INVALID_VALUE, "the region does not fit the buffer at dst_offset");
  const size_t to[3] = {dst_offset, 0, 0};
  return enqueue_box_copy(__func__, CL_COMMAND_COPY_IMAGE_TO_BUFFER, q, src, dst,
                          {from.origin, s.row_pitch, s.slice_pitch, to, row, slice, from.region},
                          num_events_in_wait_list, event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueCopyBufferToImage(cl_command_queue command_queue, cl_mem src_buffer,
                                              cl_mem dst_image, size_t src_offset,
                                              const size_t* dst_origin, const size_t* region,
                                              cl_uint num_events_in_wait_list,
                                              const cl_event* event_wait_list, cl_event* event) {
  CommandQueue* q;
  Buffer *src, *dst;
  if (cl_int err = check_queue_mem(__func__, command_queue, src_buffer, MemKind::Buffer, q, src))
    return err;
  if (cl_int err = check_queue_mem(__func__, command_queue, dst_image, MemKind::Image, q, dst))
    return err;
  const backend::ImageShape& d = *dst->image();
  if (cl_int err = check_box(__func__, d, dst_origin, region)) return err;
  const ByteBox to(d, dst_origin, region);
  const size_t row = to.region[0], slice = row * region[1];
  PARASOL_REFUSE_IF(src_offset > src->size() || slice * region[2] > src->size() - src_offset,
                    CL_INVALID_VALUE, "the region does not fit the buffer at src_offset");
  const size_t from[3] = {src_offset, 0, 0};
  return enqueue_box_copy(__func__, CL_COMMAND_COPY_BUFFER_TO_IMAGE, q, src, dst,
                          {from, row, slice, to.origin, d.row_pitch, d.slice_pitch, to.region},
                          num_events_in_wait_list, event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueFillImage(cl_command_queue command_queue, cl_mem image,
                                      const void* fill_color, const size_t* origin,
                                      const size_t* region, cl_uint num_events_in_wait_list,
                                      const cl_event* event_wait_list, cl_event* event) {
  CommandQueue* q;
  Buffer* b;
  if (cl_int err = check_queue_mem(__func__, command_queue, image, MemKind::Image, q, b)) return err;
  PARASOL_REFUSE_IF(!fill_color, CL_INVALID_VALUE, "fill_color is null");
  const backend::ImageShape& s = *b->image();
  if (cl_int err = check_box(__func__, s, origin, region)) return err;
  // The pixel is made now (the color is read during this call only).
  std::array<unsigned char, 16> pixel{};
  backend::pack_pixel(s.format, fill_color, pixel.data());
  const ByteBox box(s, origin, region);
  const size_t bytes = box.region[0] * region[1] * region[2];
  return enqueue_host(
      __func__, q, CL_COMMAND_FILL_IMAGE, bytes, {{b, STARPU_RW}},
      [b, s, box, pixel] {  // the command holds the image
        std::byte* first = b->host_bytes() + box.origin[2] * s.slice_pitch +
                           box.origin[1] * s.row_pitch + box.origin[0];
        for (size_t z = 0; z < box.region[2]; ++z)
          for (size_t y = 0; y < box.region[1]; ++y) {
            std::byte* row = first + z * s.slice_pitch + y * s.row_pitch;
            for (size_t x = 0; x < box.region[0]; x += s.element_size)
              std::memcpy(row + x, pixel.data(), s.element_size);
          }
        return cl_int{CL_COMPLETE};
      },
      CL_FALSE, num_events_in_wait_list, event_wait_list, event);
}

void* CL_API_CALL clEnqueueMapImage(cl_command_queue command_queue, cl_mem image,
                                    cl_bool blocking_map, cl_map_flags map_flags,
                                    const size_t* origin, const size_t* region,
                                    size_t* image_row_pitch, size_t* image_slice_pitch,
                                    cl_uint num_events_in_wait_list,
                                    const cl_event* event_wait_list, cl_event* event,
                                    cl_int* errcode_ret) {
  void* mapped = nullptr;
  cl_int err = [&]() -> cl_int {
    CommandQueue* q;
    Buffer* b;
    if (cl_int e = check_queue_mem(__func__, command_queue, image, MemKind::Image, q, b)) return e;
    const backend::ImageShape& s = *b->image();
    if (cl_int e = check_box(__func__, s, origin, region)) return e;
    PARASOL_REFUSE_IF(!image_row_pitch, CL_INVALID_VALUE, "image_row_pitch is null");
    const bool has_slices = s.type == CL_MEM_OBJECT_IMAGE3D || s.type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                            s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
    PARASOL_REFUSE_IF(has_slices && !image_slice_pitch, CL_INVALID_VALUE,
                      "image_slice_pitch is null for an image with slices or layers");
    // The bytes from the box's first pixel to its last: the mapped pointer
    // lies at its first pixel, with the image's pitches.
    const ByteBox box(s, origin, region);
    const size_t first = s.offset(origin);
    const size_t span = (region[2] - 1) * s.slice_pitch + (region[1] - 1) * s.row_pitch + box.region[0];
    cl_int e = CL_SUCCESS;
    mapped = map_bytes(__func__, CL_COMMAND_MAP_IMAGE, q, b, blocking_map, map_flags, first, span,
                       num_events_in_wait_list, event_wait_list, event, e);
    if (e == CL_SUCCESS || e == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
      *image_row_pitch = s.row_pitch;
      if (image_slice_pitch) *image_slice_pitch = has_slices ? (s.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? s.row_pitch : s.slice_pitch) : 0;
    }
    return e;
  }();
  if (errcode_ret) *errcode_ret = err;
  return err == CL_SUCCESS ? mapped : nullptr;
}

namespace {

Produced<cl_sampler> create_sampler(const char* function, cl_context context,
                                    cl_bool normalized_coords, cl_addressing_mode addressing_mode,
                                    cl_filter_mode filter_mode) {
  {
    auto* ctx = checked<Context>(context);
    if (!ctx) return refuse(function, CL_INVALID_CONTEXT, "not a live Parasol context");
    PARASOL_REFUSE_IF(normalized_coords != CL_TRUE && normalized_coords != CL_FALSE,
                      CL_INVALID_VALUE, "normalized_coords is neither CL_TRUE nor CL_FALSE");
    PARASOL_REFUSE_IF(addressing_mode != CL_ADDRESS_NONE && addressing_mode != CL_ADDRESS_CLAMP_TO_EDGE &&
                          addressing_mode != CL_ADDRESS_CLAMP && addressing_mode != CL_ADDRESS_REPEAT &&
                          addressing_mode != CL_ADDRESS_MIRRORED_REPEAT,
                      CL_INVALID_VALUE, "unknown addressing_mode 0x", std::hex, addressing_mode);
    PARASOL_REFUSE_IF(filter_mode != CL_FILTER_NEAREST && filter_mode != CL_FILTER_LINEAR,
                      CL_INVALID_VALUE, "unknown filter_mode 0x", std::hex, filter_mode);
    PARASOL_REFUSE_IF(image_devices(*ctx).empty(), CL_INVALID_OPERATION,
                      "no device of the context supports images");
    auto* s = core::create<core::Sampler>(ctx, normalized_coords, addressing_mode, filter_mode);
    return s->handle();
  }
}

}  // namespace

cl_sampler CL_API_CALL clCreateSampler(cl_context context, cl_bool normalized_coords,
                                       cl_addressing_mode addressing_mode,
                                       cl_filter_mode filter_mode, cl_int* errcode_ret) {
  return produce<cl_sampler>(errcode_ret, [&] {
    return create_sampler(__func__, context, normalized_coords, addressing_mode, filter_mode);
  });
}

cl_sampler CL_API_CALL clCreateSamplerWithProperties(cl_context context,
                                                     const cl_sampler_properties* properties,
                                                     cl_int* errcode_ret) {
  return produce<cl_sampler>(errcode_ret, [&]() -> Produced<cl_sampler> {
    // Defaults: normalized coordinates, clamp, nearest (OpenCL 2.0).
    cl_bool normalized = CL_TRUE;
    cl_addressing_mode addressing = CL_ADDRESS_CLAMP;
    cl_filter_mode filter = CL_FILTER_NEAREST;
    for (const cl_sampler_properties* p = properties; p && *p; p += 2) {
      switch (p[0]) {
        case CL_SAMPLER_NORMALIZED_COORDS: normalized = static_cast<cl_bool>(p[1]); break;
        case CL_SAMPLER_ADDRESSING_MODE: addressing = static_cast<cl_addressing_mode>(p[1]); break;
        case CL_SAMPLER_FILTER_MODE: filter = static_cast<cl_filter_mode>(p[1]); break;
        default:
          return refuse(__func__, CL_INVALID_VALUE, "unknown sampler property 0x", std::hex, p[0]);
      }
    }
    Produced<cl_sampler> made = create_sampler(__func__, context, normalized, addressing, filter);
    if (made.value) core::Sampler::from(made.value)->set_properties(property_list(properties));
    return made;
  });
}

cl_int CL_API_CALL clRetainSampler(cl_sampler sampler) {
  return retain_handle<core::Sampler>(__func__, sampler, CL_INVALID_SAMPLER);
}

cl_int CL_API_CALL clReleaseSampler(cl_sampler sampler) {
  return release_handle<core::Sampler>(__func__, sampler, CL_INVALID_SAMPLER);
}

cl_int CL_API_CALL clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param_name,
                                    size_t param_value_size, void* param_value,
                                    size_t* param_value_size_ret) {
  auto* s = checked<core::Sampler>(sampler);
  PARASOL_REFUSE_IF(!s, CL_INVALID_SAMPLER, "not a live Parasol sampler");
  InfoOut out(param_value_size, param_value, param_value_size_ret);
  switch (param_name) {
    case CL_SAMPLER_REFERENCE_COUNT: return out.scalar(s->api_ref_count());
    case CL_SAMPLER_CONTEXT: return out.scalar(s->context()->handle());
    case CL_SAMPLER_NORMALIZED_COORDS: return out.scalar(s->normalized());
    case CL_SAMPLER_ADDRESSING_MODE: return out.scalar(s->addressing());
    case CL_SAMPLER_FILTER_MODE: return out.scalar(s->filter());
    case CL_SAMPLER_PROPERTIES:
      return out.bytes(s->properties().data(),
                       s->properties().size() * sizeof(cl_sampler_properties));
    default:
      return refuse(__func__, CL_INVALID_VALUE, "unknown param_name 0x", std::hex, param_name);
  }
}

}  // namespace parasol::icd
