"""pyopencl, a real OpenCL client, on a Parasol context mixing vendors.

One Parasol context holds a PoCL device and the Oclgrind device; each device
has its own queue. The script runs pyopencl's generated kernels (elementwise,
arrays, reduction, scan) on both devices, over the same buffers so the data
moves between vendors, checks every result against numpy, and exercises
events (wait lists across devices, user events, markers, callbacks,
profiling). Exits non-zero (an AssertionError or an OpenCL error) on the
first failure.

Run with Debian's interpreter (/usr/bin/python3, python3-pyopencl) inside the
suite's vendor configuration (build/test/suite-env).
"""
import sys
import threading

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.elementwise import ElementwiseKernel
from pyopencl.reduction import ReductionKernel
from pyopencl.scan import InclusiveScanKernel, ExclusiveScanKernel

from parasol_queries import parasol_platform, ran_on, vendor_of

N = 4096  # Oclgrind simulates every work-item: keep the sizes small
rng = np.random.default_rng(2024)


def step(name):
    print(f"== {name}", flush=True)


platform = parasol_platform()
devices = platform.get_devices()
pocl = [d for d in devices if vendor_of(d).startswith("Portable Computing Language")]
grind = [d for d in devices if vendor_of(d).startswith("Oclgrind")]
assert pocl and grind, f"need a PoCL and an Oclgrind device, got {[vendor_of(d) for d in devices]}"
pair = [pocl[0], grind[0]]
print("Parasol devices:", [f"{d.name} [{vendor_of(d)}]" for d in devices])

ctx = cl.Context(pair)
assert ctx.devices == pair
props = cl.command_queue_properties.PROFILING_ENABLE
q_pocl = cl.CommandQueue(ctx, pair[0], properties=props)
q_grind = cl.CommandQueue(ctx, pair[1], properties=props)
queues = {"PoCL": q_pocl, "Oclgrind": q_grind}

# ---------------------------------------------------------------- elementwise
step("ElementwiseKernel on each device, the same buffers hopping between vendors")
axpbyz = ElementwiseKernel(
    ctx, "float a, __global const float *x, float b, __global const float *y, __global float *z",
    "z[i] = a * x[i] + b * y[i]", "axpbyz")
x_h = rng.standard_normal(N).astype(np.float32)
y_h = rng.standard_normal(N).astype(np.float32)
x = cla.to_device(q_pocl, x_h)
y = cla.to_device(q_pocl, y_h)
z = cla.empty_like(x)
ev1 = axpbyz(np.float32(2.0), x, np.float32(-0.5), y, z, queue=q_pocl)
# Second step on Oclgrind, reading z written by PoCL: waits for PoCL's event.
w = cla.empty(q_grind, N, np.float32)
ev2 = axpbyz(np.float32(1.5), z.with_queue(q_grind), np.float32(3.0), x.with_queue(q_grind), w,
             queue=q_grind, wait_for=[ev1])
ref_z = np.float32(2.0) * x_h + np.float32(-0.5) * y_h
ref_w = np.float32(1.5) * ref_z + np.float32(3.0) * x_h
np.testing.assert_allclose(z.with_queue(q_grind).get(), ref_z, rtol=1e-6, atol=1e-6)
np.testing.assert_allclose(w.with_queue(q_pocl).get(), ref_w, rtol=1e-5, atol=1e-5)
assert ev1.command_execution_status == cl.command_execution_status.COMPLETE
assert ev2.command_execution_status == cl.command_execution_status.COMPLETE

# ---------------------------------------------------------------- arrays
step("pyopencl.array arithmetic, ufunc-style math, slicing, on both queues")
for label, q in queues.items():
    a = cla.to_device(q, x_h)
    b = cla.to_device(q, y_h)
    c = (a * 3 + b) / 2 - 1
    np.testing.assert_allclose(c.get(), (x_h * 3 + y_h) / 2 - 1, rtol=1e-5, atol=1e-5,
                               err_msg=label)
    d = cla.maximum(a, b)
    np.testing.assert_array_equal(d.get(), np.maximum(x_h, y_h), err_msg=label)
    e = a[100:1100] * b[1000:2000]
    np.testing.assert_allclose(e.get(), x_h[100:1100] * y_h[1000:2000], rtol=1e-6, err_msg=label)
    f = a.copy()
    f.fill(np.float32(7.0))
    assert (f.get() == 7.0).all(), label
    g = cla.arange(q, 0, N, 1, dtype=np.int32)
    np.testing.assert_array_equal(g.get(), np.arange(N, dtype=np.int32), err_msg=label)
    print(f"  {label}: ok")

# An array made on one device's queue, then used on the other's.
a = cla.to_device(q_pocl, x_h)
a_sq = a * a                    # on PoCL
a_sq.queue = q_grind
a_sq += 1                       # on Oclgrind, same buffer
np.testing.assert_allclose(a_sq.get(), x_h * x_h + 1, rtol=1e-6)

# ---------------------------------------------------------------- reduction
step("ReductionKernel (dot product) and array reductions on both devices")
dot = ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*y[i]",
                      arguments="__global const float *x, __global const float *y")
xr = rng.random(N).astype(np.float32)
yr = rng.random(N).astype(np.float32)
for label, q in queues.items():
    xd, yd = cla.to_device(q, xr), cla.to_device(q, yr)
    got = dot(xd, yd, queue=q).get()
    want = np.dot(xr.astype(np.float64), yr.astype(np.float64))
    assert abs(float(got) - want) <= 1e-4 * abs(want), f"{label}: dot {got} != {want}"
    assert abs(float(cla.sum(xd).get()) - xr.astype(np.float64).sum()) <= 1e-3, label
    assert float(cla.max(xd).get()) == xr.max(), label
    assert float(cla.min(yd).get()) == yr.min(), label
    print(f"  {label}: dot = {float(got):.4f} (numpy {want:.4f})")

# ---------------------------------------------------------------- scan
step("InclusiveScanKernel and ExclusiveScanKernel (prefix sums) on both devices")
inclusive = InclusiveScanKernel(ctx, np.int32, "a+b", neutral="0")
exclusive = ExclusiveScanKernel(ctx, np.int32, "a+b", "0")
s_h = rng.integers(0, 100, N).astype(np.int32)
for label, q in queues.items():
    s = cla.to_device(q, s_h)
    inclusive(s, queue=q)
    np.testing.assert_array_equal(s.get(), np.cumsum(s_h, dtype=np.int32), err_msg=label)
    t = cla.to_device(q, s_h)
    exclusive(t, queue=q)
    want = np.concatenate(([0], np.cumsum(s_h, dtype=np.int32)[:-1])).astype(np.int32)
    np.testing.assert_array_equal(t.get(), want, err_msg=label)
    print(f"  {label}: ok")

# ---------------------------------------------------------------- events
step("events: user event gating both devices, markers, callbacks, profiling, wait")
gate = cl.UserEvent(ctx)
u = cla.to_device(q_pocl, x_h)
q_pocl.finish()
e_pocl = axpbyz(np.float32(1.0), u, np.float32(1.0), u, u, queue=q_pocl, wait_for=[gate])
ug = u.with_queue(q_grind)
e_grind = axpbyz(np.float32(0.5), ug, np.float32(0.0), ug, ug, queue=q_grind, wait_for=[e_pocl])
seen = []
done = threading.Event()


def on_complete(status):
    seen.append(status)
    done.set()


e_grind.set_callback(cl.command_execution_status.COMPLETE, on_complete)
assert e_pocl.command_execution_status > cl.command_execution_status.RUNNING  # still gated
gate.set_status(cl.command_execution_status.COMPLETE)
marker = cl.enqueue_marker(q_grind, wait_for=[e_grind])
marker.wait()
cl.wait_for_events([e_pocl, e_grind])
assert done.wait(10), "the CL_COMPLETE callback did not run"
assert seen == [cl.command_execution_status.COMPLETE], seen
np.testing.assert_allclose(u.get(), x_h, rtol=1e-6)  # (x + x) * 0.5
for ev in (e_pocl, e_grind):
    start, end = ev.profile.start, ev.profile.end
    queued = ev.profile.queued
    assert queued <= start <= end, (queued, start, end)
    assert ev.command_type == cl.command_type.NDRANGE_KERNEL
assert e_grind.get_info(cl.event_info.COMMAND_QUEUE) == q_grind
assert e_grind.get_info(cl.event_info.CONTEXT) == ctx
# Each command ran on its queue's device.
assert ran_on(e_pocl) == pair[0].int_ptr and ran_on(e_grind) == pair[1].int_ptr

print("pyopencl on Parasol: all checks passed")
