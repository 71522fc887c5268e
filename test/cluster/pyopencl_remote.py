"""pyopencl as rank 0 of an MPI job, on another rank's device.

Run as rank 0 under mpirun with parasol-node on the other ranks and
PARASOL_REMOTE_DEVICES=1 (test/cluster/CMakeLists.txt). On a context of rank
1's PoCL device, picked by name, the script runs pyopencl's generated
kernels: an ElementwiseKernel, ReductionKernels (a sum, a dot product of
two arrays, a maximum) and array arithmetic, and checks each result against
numpy and that the remote device ran it. Exits non-zero (an AssertionError
or an OpenCL error) on the first failure.

Run with Debian's interpreter (/usr/bin/python3, python3-pyopencl).
"""
import os
import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.elementwise import ElementwiseKernel
from pyopencl.reduction import ReductionKernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients"))
from parasol_queries import parasol_platform, ran_on, vendor_of  # noqa: E402

N = 1 << 16
rng = np.random.default_rng(39)


def step(name):
    print(f"== {name}", flush=True)


devices = parasol_platform().get_devices()
remote = [d for d in devices if " (rank 1 on " in d.name
          and vendor_of(d).startswith("Portable Computing Language")]
assert remote, f"no PoCL device of rank 1 in {[d.name for d in devices]}"
remote = remote[0]
print("remote device:", remote.name, flush=True)

ctx = cl.Context([remote])
q = cl.CommandQueue(ctx, remote, properties=cl.command_queue_properties.PROFILING_ENABLE)

x_h = rng.standard_normal(N).astype(np.float32)
y_h = rng.standard_normal(N).astype(np.float32)
x = cla.to_device(q, x_h)
y = cla.to_device(q, y_h)

step("ElementwiseKernel")
axpbyz = ElementwiseKernel(
    ctx, "float a, __global const float *x, float b, __global const float *y, __global float *z",
    "z[i] = a * x[i] + b * y[i]", "axpbyz")
z = cla.empty_like(x)
ev = axpbyz(np.float32(2.0), x, np.float32(-0.5), y, z)
np.testing.assert_allclose(z.get(), np.float32(2.0) * x_h + np.float32(-0.5) * y_h,
                           rtol=1e-6, atol=1e-6)
assert ev.command_execution_status == cl.command_execution_status.COMPLETE
assert ran_on(ev) == remote.int_ptr, "the elementwise kernel did not run on the remote device"

step("ElementwiseKernel on a slice (a sub-buffer) and an integer array")
half = x[N // 2:]
doubled = cla.empty_like(half)
ElementwiseKernel(ctx, "__global const float *a, __global float *b", "b[i] = 2 * a[i]")(
    half, doubled)
np.testing.assert_array_equal(doubled.get(), 2 * x_h[N // 2:])
ints = cla.arange(q, 0, N, 1, dtype=np.int32)
np.testing.assert_array_equal((ints * 3 + 1).get(), np.arange(N, dtype=np.int32) * 3 + 1)

step("ReductionKernel: dot product")
dot = ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="a+b",
                      map_expr="x[i]*y[i]",
                      arguments="__global const float *x, __global const float *y")
got, ev = dot(x, y, return_event=True)
ev.wait()
ref = np.dot(x_h.astype(np.float64), y_h.astype(np.float64))
assert abs(float(got.get()) - ref) <= 1e-3 * max(1.0, abs(ref)), (float(got.get()), ref)
assert ran_on(ev) == remote.int_ptr, "the reduction did not run on the remote device"

step("ReductionKernel: maximum; pyopencl.array sum and min")
maximum = ReductionKernel(ctx, np.float32, neutral="-INFINITY", reduce_expr="fmax(a, b)",
                          map_expr="x[i]", arguments="__global const float *x")
assert float(maximum(x).get()) == float(x_h.max())
total = float(cla.sum(x).get())
assert abs(total - float(x_h.astype(np.float64).sum())) <= 1e-2, total
assert float(cla.min(y).get()) == float(y_h.min())

step("array arithmetic")
c = (x * 3 + y) / 2 - 1
np.testing.assert_allclose(c.get(), (x_h * 3 + y_h) / 2 - 1, rtol=1e-5, atol=1e-5)
q.finish()
print("pyopencl on rank 1's device: all checks passed", flush=True)
