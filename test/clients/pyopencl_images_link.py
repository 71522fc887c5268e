"""pyopencl's image and separate-compilation APIs on Parasol's devices.

For each of a PoCL device and the Oclgrind device (one Parasol context
each), and for a context holding both: images made from numpy arrays, read
back, copied, filled and sampled in kernels (nearest and linear, normalized
coordinates, clamp), and a program compiled in two parts (cl.Program.compile
with a header, cl.link_program) and run. Every result is checked against
numpy. Exits non-zero on the first failure.

Run with Debian's interpreter (/usr/bin/python3, python3-pyopencl) inside the
suite's vendor configuration (build/test/suite-env).
"""
import sys

import numpy as np
import pyopencl as cl

from parasol_queries import parasol_platform, vendor_of

mf = cl.mem_flags
rng = np.random.default_rng(7)


def parasol_devices():
    devices = parasol_platform().get_devices()
    by_vendor = lambda prefix: next(d for d in devices if vendor_of(d).startswith(prefix))
    return by_vendor("Portable Computing Language"), by_vendor("Oclgrind")


def check(name, got, want, tol=0.0):
    if tol:
        ok = np.allclose(got, want, atol=tol)
    else:
        ok = np.array_equal(got, want)
    if not ok:
        bad = np.argwhere(~np.isclose(got, want, atol=tol) if tol else got != want)
        raise AssertionError(f"{name}: {len(bad)} values differ, first at {bad[:3].tolist()}")
    print(f"  {name}: ok", flush=True)


def images(ctx, queue):
    # A 2D RGBA float image from an array, read back whole and in part.
    h, w = 12, 17
    pixels = rng.random((h, w, 4), dtype=np.float32)
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
    img = cl.Image(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, fmt, shape=(w, h), hostbuf=pixels)
    back = np.empty_like(pixels)
    cl.enqueue_copy(queue, back, img, origin=(0, 0), region=(w, h))
    check("image read back", back, pixels)
    part = np.empty((5, 6, 4), np.float32)
    cl.enqueue_copy(queue, part, img, origin=(3, 2), region=(6, 5))
    check("image box read", part, pixels[2:7, 3:9])

    # cl.image_from_array, and an image-to-image copy.
    gray = rng.integers(0, 255, (9, 14), dtype=np.uint8)
    src = cl.image_from_array(ctx, gray, num_channels=1)
    dst = cl.Image(ctx, mf.READ_WRITE, cl.ImageFormat(cl.channel_order.R, cl.channel_type.UNSIGNED_INT8),
                   shape=(14, 9))
    cl.enqueue_copy(queue, dst, src, src_origin=(0, 0), dest_origin=(0, 0), region=(14, 9))
    out = np.empty_like(gray)
    cl.enqueue_copy(queue, out, dst, origin=(0, 0), region=(14, 9))
    check("image_from_array, then copied", out, gray)

    # Fill a box with a color.
    cl.enqueue_fill_image(queue, img, np.array([0.25, 0.5, 0.75, 1.0], np.float32),
                          origin=(1, 1), region=(4, 3))
    cl.enqueue_copy(queue, back, img, origin=(0, 0), region=(w, h))
    want = pixels.copy()
    want[1:4, 1:5] = [0.25, 0.5, 0.75, 1.0]
    check("image fill", back, want)

    # Kernels sampling the image: nearest and linear, normalized coordinates.
    prg = cl.Program(ctx, """
        __kernel void sample(__read_only image2d_t in, sampler_t s, __global float4* out) {
          int x = get_global_id(0), y = get_global_id(1);
          float2 c = (float2)((x + 0.5f) / get_global_size(0), (y + 0.5f) / get_global_size(1));
          out[y * get_global_size(0) + x] = read_imagef(in, s, c);
        }""").build()
    for filt, name in ((cl.filter_mode.NEAREST, "nearest"), (cl.filter_mode.LINEAR, "linear")):
        sampler = cl.Sampler(ctx, True, cl.addressing_mode.CLAMP_TO_EDGE, filt)
        out = cl.Buffer(ctx, mf.WRITE_ONLY, w * h * 16)
        prg.sample(queue, (w, h), None, img, sampler, out)
        got = np.empty((h, w, 4), np.float32)
        cl.enqueue_copy(queue, got, out)
        # Sampling at the texel centres gives the texels, in either mode.
        check(f"read_imagef, {name}", got, want, tol=1e-6 if filt == cl.filter_mode.LINEAR else 0.0)


def compile_link(ctx, queue):
    header = cl.Program(ctx, "float scale(float x);\n")
    user = cl.Program(ctx, """
        #include "scale.h"
        __kernel void apply(__global float* x) { int i = get_global_id(0); x[i] = scale(x[i]) + OFFSET; }
        """).compile(options=["-DOFFSET=1.5f"], headers=[("scale.h", header)])
    lib = cl.Program(ctx, "float scale(float x) { return 3.0f * x; }\n").compile()
    exe = cl.link_program(ctx, [user, lib])
    x = rng.random(256, dtype=np.float32)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=x)
    exe.apply(queue, x.shape, None, buf)
    got = np.empty_like(x)
    cl.enqueue_copy(queue, got, buf)
    check("compile with a header, then link", got, 3.0 * x + 1.5, tol=1e-6)


def main():
    pocl, grind = parasol_devices()
    for devices in ([pocl], [grind], [pocl, grind]):
        ctx = cl.Context(devices)
        for d in devices:
            print(f"== {d.name} in a context of {len(devices)} device(s)", flush=True)
            queue = cl.CommandQueue(ctx, d)
            images(ctx, queue)
            compile_link(ctx, queue)
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
