// libFuzzer target: the argument-setting path. The input is a list of
// operations on kernels of one program: clSetKernelArg with random indexes
// (SOCL's negative ones included), sizes, values and memory handles (live,
// null, released or wild), then clEnqueueNDRangeKernel or not, on a device
// queue or a context queue of PoCL devices. Every launch must finish
// (complete or fail), never hang or crash.
#include <chrono>
#include <thread>

#include "fuzz_common.h"

using namespace parasol_fuzz;

namespace {

PoclContext g;
cl_program g_program = nullptr;
std::vector<cl_command_queue> g_queues;
std::vector<cl_mem> g_buffers;  // every buffer holds 4096 bytes
cl_mem g_released = nullptr;    // a handle that was live once

// Kernels that stay in bounds whatever their arguments: indexes wrap at
// 1024 ints, null buffers are skipped, __local memory is only measured.
const char* kSource =
    "typedef struct { int a; float b; char c; } S;\n"
    "__kernel void many(__global int* g, __constant int* c, __local int* l, int i, float4 f,\n"
    "                   uint2 u, char ch, long lg, __global float* g2) {\n"
    "  size_t id = get_global_id(0) + get_global_id(1) * 7 + get_global_id(2) * 13;\n"
    "  if (!g) return;\n"
    "  int v = i + (int)f.x + (int)u.y + ch + (int)lg + (l ? 1 : 0);\n"
    "  if (c) v += c[id % 1024];\n"
    "  g[id % 1024] = v;\n"
    "  if (g2) g2[id % 1024] = f.y;\n"
    "}\n"
    "__kernel void simple(__global int* x, int n) { if (x) x[get_global_id(0) % 1024] = n; }\n"
    "__kernel void by_struct(S s, __global float* o) { if (o) o[get_global_id(0) % 1024] = s.a + s.b + s.c; }\n"
    "__kernel void no_args(void) {}\n"
    "__kernel void two_buffers(__global const int* a, __global int* b) {\n"
    "  if (a && b) b[get_global_id(0) % 1024] += a[get_global_id(0) % 1024];\n"
    "}\n";
const char* kKernelNames[] = {"many", "simple", "by_struct", "no_args", "two_buffers"};

void wait_bounded(cl_event e) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    cl_int status = CL_QUEUED;
    if (clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr) !=
            CL_SUCCESS ||
        status <= CL_COMPLETE)
      return;
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "a kernel launch did not finish in 30 s\n");
      std::abort();  // a hang is a finding
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

cl_mem pick_mem(uint8_t sel, uint32_t wild) {
  switch (sel % 6) {
    case 0: return nullptr;
    case 1: return g_released;
    case 2: return reinterpret_cast<cl_mem>(static_cast<uintptr_t>(wild));
    default: return g_buffers[sel % g_buffers.size()];
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g = make_pocl_context();
  cl_int err = CL_SUCCESS;
  g_program = clCreateProgramWithSource(g.ctx, 1, &kSource, nullptr, &err);
  if (err != CL_SUCCESS) die("clCreateProgramWithSource");
  if (clBuildProgram(g_program, 0, nullptr, "", nullptr, nullptr) != CL_SUCCESS) die("build");
  for (cl_device_id d : g.devices) {
    g_queues.push_back(clCreateCommandQueue(g.ctx, d, 0, &err));
    g_queues.push_back(clCreateCommandQueue(g.ctx, d, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err));
  }
  g_queues.push_back(clCreateCommandQueue(g.ctx, nullptr, 0, &err));
  g_queues.push_back(clCreateCommandQueue(g.ctx, nullptr, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err));
  for (cl_mem_flags f : {CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE}) {
    g_buffers.push_back(clCreateBuffer(g.ctx, f, 4096, nullptr, &err));
    if (err != CL_SUCCESS) die("clCreateBuffer");
  }
  g_released = clCreateBuffer(g.ctx, CL_MEM_READ_WRITE, 4096, nullptr, &err);
  clReleaseMemObject(g_released);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 2048) return 0;
  Input in(data, size);
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(g_program, kKernelNames[in.byte() % 5], &err);
  if (err != CL_SUCCESS) std::abort();
  std::vector<cl_event> launched;
  for (int op = 0; op < 32 && !in.empty(); ++op) {
    uint8_t kind = in.byte();
    switch (kind % 4) {
      case 0: {  // a value of any size at any index
        uint8_t idx_byte = in.byte();
        // Mostly real indexes, sometimes past the end or SOCL's -2/-3.
        cl_uint index = idx_byte < 200 ? idx_byte % 10
                        : idx_byte < 240 ? static_cast<cl_uint>(idx_byte)
                                         : static_cast<cl_uint>(-2 - (idx_byte & 1));
        size_t arg_size = in.byte();
        if (kind & 0x80) arg_size = size_t{1} << (in.byte() % 14);
        std::vector<uint8_t> value = in.bytes(arg_size);
        value.resize(std::max<size_t>(arg_size, 1));
        if (index == static_cast<cl_uint>(-2) && arg_size >= 8) {
          // A partitioning-factor range: keep the factors small.
          value[0] = value[0] % 4; value[1] = value[2] = value[3] = 0;
          value[4] = value[4] % 8; value[5] = value[6] = value[7] = 0;
        }
        clSetKernelArg(k, index, arg_size, (kind & 0x40) ? nullptr : value.data());
        break;
      }
      case 1: {  // a memory handle
        cl_uint index = in.byte() % 10;
        uint8_t sel = in.byte();
        cl_mem m = pick_mem(sel, in.u32());
        size_t arg_size = (kind & 0x80) ? in.byte() % 16 : sizeof(cl_mem);
        // arg_value must hold arg_size bytes (the caller's side of the contract).
        unsigned char holder[16] = {};
        std::memcpy(holder, &m, sizeof m);
        clSetKernelArg(k, index, arg_size, (kind & 0x40) ? nullptr : holder);
        break;
      }
      case 2: {  // __local size
        cl_uint index = in.byte() % 10;
        size_t local = (size_t{in.byte()} << 4) | (kind >> 4);
        clSetKernelArg(k, index, local, nullptr);
        break;
      }
      case 3: {  // launch
        cl_command_queue q = g_queues[in.byte() % g_queues.size()];
        cl_uint dims = 1 + in.byte() % 3;
        size_t global[3], local[3], offset[3];
        for (cl_uint d = 0; d < 3; ++d) {
          global[d] = 1 + in.byte() % 16;
          local[d] = 1 + in.byte() % 4;
          offset[d] = in.byte() % 8;
        }
        uint8_t how = in.byte();
        cl_event e = nullptr;
        err = clEnqueueNDRangeKernel(q, k, dims, (how & 1) ? offset : nullptr, global,
                                     (how & 2) ? local : nullptr, 0, nullptr, &e);
        if (err == CL_SUCCESS) launched.push_back(e);
        break;
      }
    }
  }
  clReleaseKernel(k);  // launched commands keep it alive
  for (cl_event e : launched) {
    wait_bounded(e);
    clReleaseEvent(e);
  }
  return 0;
}
