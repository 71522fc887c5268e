// Whether the two boxes of a *Rect copy share a byte: the test behind
// clEnqueueCopyBufferRect's CL_MEM_COPY_OVERLAP when both buffers are
// windows of one storage (one buffer, or sub-buffers of one parent).
#pragma once

#include <cstddef>

namespace parasol::icd {

// A box's place in the storage: the byte of its origin and its pitches, as
// resolved (non-zero; the slice pitch a multiple of the row pitch, which is
// at least the region's width).
struct RectPlacement {
  std::size_t base;
  std::size_t row_pitch, slice_pitch;
};

// Exact for any pitches: true only if some byte is in both boxes of
// `region` (bytes, rows, slices). Constant time when the pitches are equal,
// else linear in the source box's rows.
bool rect_boxes_overlap(const RectPlacement& src, const RectPlacement& dst, const std::size_t region[3]);

// The coarser test a vendor may apply to a copy within one of its buffers
// (PoCL 3.1's, as the conformance suite's own): whether the extents of the
// boxes, each region[2] slices + region[1] rows + region[0] bytes from its
// origin, meet. Where they do not, such a vendor accepts the copy.
bool rect_extents_meet(const RectPlacement& src, const RectPlacement& dst, const std::size_t region[3]);

}  // namespace parasol::icd
