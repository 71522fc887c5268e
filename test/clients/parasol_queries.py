"""Parasol's platform and its own queries for pyopencl scripts.

Parasol's queries (include/CL/cl_parasol.h) are unknown to pyopencl's
get_info, so they go straight to the loader through ctypes.
"""
import ctypes

import pyopencl as cl


def parasol_platform():
    for p in cl.get_platforms():
        if p.name == "Parasol":
            return p
    raise AssertionError("no Parasol platform: " + ", ".join(p.name for p in cl.get_platforms()))


_libcl = ctypes.CDLL("libOpenCL.so.1")
CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL = 0xFF10
CL_EVENT_DEVICE_PARASOL = 0xFF20


def vendor_of(dev):
    buf = ctypes.create_string_buffer(256)
    err = _libcl.clGetDeviceInfo(ctypes.c_void_p(dev.int_ptr),
                                 ctypes.c_uint(CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL),
                                 ctypes.c_size_t(256), buf, None)
    assert err == 0, f"clGetDeviceInfo(CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL) = {err}"
    return buf.value.decode()


def ran_on(event):
    dev = ctypes.c_void_p()
    err = _libcl.clGetEventInfo(ctypes.c_void_p(event.int_ptr),
                                ctypes.c_uint(CL_EVENT_DEVICE_PARASOL),
                                ctypes.c_size_t(ctypes.sizeof(dev)), ctypes.byref(dev), None)
    assert err == 0, f"clGetEventInfo(CL_EVENT_DEVICE_PARASOL) = {err}"
    return dev.value
