/* Parasol's OpenCL extensions: one platform over every vendor's devices.
 *
 * Entry points are reached through clGetExtensionFunctionAddressForPlatform
 * with the Parasol platform; the enum values below extend the standard
 * queries. Parasol also accepts SOCL's conventions unchanged. */
#ifndef CL_PARASOL_H
#define CL_PARASOL_H

#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CL_PARASOL_EXTENSION_NAME "cl_parasol_unified_platform"

/* Context property: the scheduling policy of the context's queues, a
 * NUL-terminated policy name ("heft", "eager", "dmdas", "ws", "lws",
 * "random", "prio", ...). Same value as SOCL's CL_CONTEXT_SCHEDULER_SOCL. */
#define CL_CONTEXT_SCHEDULER_PARASOL 0xFF01
#define CL_CONTEXT_SCHEDULER_SOCL 0xFF01
/* Context property: CL_FALSE keeps every launch of the context's queues
 * whole; CL_TRUE (the default, unless PARASOL_SPLIT=0) lets a context queue
 * split a kernel's launch across its devices (docs/user-guide.md, "Split
 * launches"). A cl_bool. */
#define CL_CONTEXT_SPLIT_PARASOL 0xFF02
/* clGetContextInfo(CL_CONTEXT_SCHEDULER_PARASOL) answers the policy name in
 * use (char[]), the property's or the default. */

/* clGetDeviceInfo: the vendor platform behind a Parasol device. */
#define CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL 0xFF10 /* char[] */
#define CL_DEVICE_VENDOR_PLATFORM_PARASOL 0xFF11      /* cl_platform_id (vendor's) */
#define CL_DEVICE_VENDOR_DEVICE_PARASOL 0xFF12        /* cl_device_id (vendor's) */

/* clGetEventInfo: the Parasol device that ran a command (NULL if it has not
 * run on a device, e.g. a host-side copy or a marker). */
#define CL_EVENT_DEVICE_PARASOL 0xFF20 /* cl_device_id */
/* clGetEventInfo: the partitioning factor a divisible kernel ran with
 * (0: the kernel itself, undivided). */
#define CL_EVENT_PARTITIONING_FACTOR_PARASOL 0xFF21 /* cl_uint */
/* clGetEventInfo: the devices that ran a part of a split launch, in the
 * order of their blocks of work-groups (none: the launch was not split;
 * CL_EVENT_DEVICE_PARASOL then names its one device, else the device that
 * took the largest part). */
#define CL_EVENT_SPLIT_DEVICES_PARASOL 0xFF22 /* cl_device_id[] */
/* clGetEventInfo: the work-groups each of those devices ran, same order. */
#define CL_EVENT_SPLIT_GROUPS_PARASOL 0xFF23 /* size_t[] */

/* Divide functions: granularity adaptation. When a kernel with a divide
 * function is enqueued on a context queue, Parasol runs either the kernel
 * itself or the divide function with a partitioning factor from
 * [min_factor, max_factor], chosen from measured statistics. The divide
 * function runs on the enqueuing thread; it enqueues sub-commands that wait
 * for `before` and sets `after` to an event that completes when they are
 * done; the original enqueue's event completes with `after`. It must not
 * wait for its sub-commands. */
typedef cl_int(CL_CALLBACK* cl_parasol_divide_fn)(cl_command_queue queue,
                                                  cl_uint partitioning_factor,
                                                  const cl_event before, cl_event* after,
                                                  void* user_data);
/* SOCL's convention, as SOCL 1.3 defines it: clSetKernelArg(kernel,
 * (cl_uint)-1, any size, fn) where the value is the function itself,
 * (cl_uint)-2 with a pointer to one cl_uint, the partition space (factors
 * 1 ... space-1), (cl_uint)-3 where the value is the user data. Every
 * enqueue of the kernel, on any queue, runs the function; the factors are
 * tried in order, then the fastest measured is kept (docs/extensions.md). */
typedef cl_int(CL_CALLBACK* cl_parasol_socl_divide_fn)(cl_command_queue queue,
                                                       cl_uint partitioning_factor,
                                                       void* user_data, const cl_event before,
                                                       cl_event* after);
typedef cl_int(CL_API_CALL* clSetKernelDivideFunctionPARASOL_fn)(cl_kernel kernel,
                                                                 cl_parasol_divide_fn fn,
                                                                 cl_uint min_factor,
                                                                 cl_uint max_factor,
                                                                 void* user_data);

/* Per-device counters since the process started (or the last reset):
 * commands run as tasks (kernels, native kernels, migrations; not reads,
 * writes, copies or fills), time spent running them, bytes moved to and
 * from the device's memory. PARASOL_STATS=1 prints them at exit. */
typedef struct cl_parasol_device_stats {
  cl_ulong commands;
  cl_ulong busy_ns;
  cl_ulong bytes_in;
  cl_ulong bytes_out;
} cl_parasol_device_stats;

typedef cl_int(CL_API_CALL* clGetDeviceStatsPARASOL_fn)(cl_device_id device,
                                                        cl_parasol_device_stats* stats);
typedef cl_int(CL_API_CALL* clResetDeviceStatsPARASOL_fn)(cl_device_id device);

/* How commands reached a device since the process started (or the last
 * clResetDeviceStatsPARASOL). A direct command is one Parasol enqueued on
 * one of the device's vendor queues (its lanes) itself, without a StarPU
 * task: kernels, migrations, and the reads, writes, copies, fills and maps
 * its vendor does. Each is counted once, when it goes to the vendor, by the
 * way it went:
 *   tasks:                  StarPU tasks that ran on the device (kernels,
 *                           native kernels, migrations; the host commands
 *                           StarPU runs in main RAM are no device's);
 *   direct_with_command:    with a Parasol event and a command object;
 *   direct_without_command: with a Parasol event but no command object;
 *   records:                without a Parasol event (nothing waits for it);
 *   lane_commands[i]:       the three above that went to lane i (lane 0 is
 *                           StarPU's own vendor queue of the device);
 *   cross_lane_waits:       direct commands with an event that waited on the
 *                           vendor for commands of the device's other lanes;
 *   vendor_refusals:        direct commands whose enqueue failed (the vendor
 *                           refused the command or its arguments), their
 *                           events failing with that error (a record refused
 *                           goes again with an event and counts there);
 *   vendor_failures:        direct commands that failed in the vendor while
 *                           running: their own vendor event, or the later one
 *                           proving them done, ended with an error;
 *   failed_drains:          drains of the device's lanes (a queue's
 *                           clFinish) whose vendor clFinish failed: records
 *                           without a vendor event failed, and nothing else
 *                           could tell. */
#define CL_PARASOL_MAX_LANES 8
typedef struct cl_parasol_device_paths {
  cl_ulong tasks;
  cl_ulong direct_with_command;
  cl_ulong direct_without_command;
  cl_ulong records;
  cl_ulong lane_commands[CL_PARASOL_MAX_LANES];
  cl_ulong cross_lane_waits;
  cl_ulong vendor_refusals;
  cl_ulong vendor_failures;
  cl_ulong failed_drains;
} cl_parasol_device_paths;

typedef cl_int(CL_API_CALL* clGetDevicePathsPARASOL_fn)(cl_device_id device,
                                                        cl_parasol_device_paths* paths);

#ifdef __cplusplus
}
#endif

#endif /* CL_PARASOL_H */
