#include "icd/rect_overlap.h"

#include <algorithm>
#include <cstdint>

namespace parasol::icd {
namespace {

using I = std::int64_t;  // byte offsets and row counts of one storage fit

I floor_div(I a, I b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
I ceil_div(I a, I b) { return -floor_div(-a, b); }

// Whether some m = z * rows_per_slice + y, with z in [zlo, zhi] and y in
// [ylo, yhi], puts a row starting at m * pitch within `width` bytes of d:
// |d - m * pitch| < width. Two rows of `width` bytes starting at s and t
// share a byte exactly when |s - t| < width, and a box's rows start at
// (z * rows_per_slice + y) * pitch from its origin, rows_per_slice being
// slice pitch / row pitch. As pitch >= width, at most two m qualify: the
// largest with m * pitch < d + width, and the one below it.
bool some_row_within(I d, I pitch, I width, I rows_per_slice, I zlo, I zhi, I ylo, I yhi) {
  const I top = floor_div(d + width - 1, pitch);
  for (I m = top; m >= top - 1; --m) {
    if (m * pitch <= d - width) break;
    // z such that y = m - z * rows_per_slice lies in [ylo, yhi].
    const I z_first = std::max(zlo, ceil_div(m - yhi, rows_per_slice));
    const I z_last = std::min(zhi, floor_div(m - ylo, rows_per_slice));
    if (z_first <= z_last) return true;
  }
  return false;
}

}  // namespace

bool rect_boxes_overlap(const RectPlacement& src, const RectPlacement& dst,
                        const std::size_t region[3]) {
  const I width = static_cast<I>(region[0]), rows = static_cast<I>(region[1]),
          slices = static_cast<I>(region[2]);
  const I src_base = static_cast<I>(src.base), dst_base = static_cast<I>(dst.base);
  if (src.row_pitch == dst.row_pitch && src.slice_pitch == dst.slice_pitch) {
    // A row of src at src_base + ms * pitch meets one of dst at
    // dst_base + md * pitch when |(src_base - dst_base) - (md - ms) * pitch|
    // < width; md - ms = dz * rows_per_slice + dy with |dz| < slices and
    // |dy| < rows.
    const I pitch = static_cast<I>(src.row_pitch);
    return some_row_within(src_base - dst_base, pitch, width, static_cast<I>(src.slice_pitch) / pitch,
                           -(slices - 1), slices - 1, -(rows - 1), rows - 1);
  }
  // Pitches differ: each row of src against the rows of dst.
  const I pitch = static_cast<I>(dst.row_pitch), rows_per_slice = static_cast<I>(dst.slice_pitch) / pitch;
  for (I z = 0; z < slices; ++z)
    for (I y = 0; y < rows; ++y) {
      const I start = src_base + z * static_cast<I>(src.slice_pitch) + y * static_cast<I>(src.row_pitch);
      if (some_row_within(start - dst_base, pitch, width, rows_per_slice, 0, slices - 1, 0, rows - 1))
        return true;
    }
  return false;
}

bool rect_extents_meet(const RectPlacement& src, const RectPlacement& dst,
                       const std::size_t region[3]) {
  auto end = [&](const RectPlacement& p) {
    return p.base + region[2] * p.slice_pitch + region[1] * p.row_pitch + region[0];
  };
  return src.base < end(dst) && dst.base < end(src);
}

}  // namespace parasol::icd
