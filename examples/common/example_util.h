/* Shared by the workload examples (blackscholes, matmul, nbody, image-pipeline): the command
 * line every one of them understands, the Parasol devices it picks, the two
 * ways of spreading blocks over them, and the report of where each block ran.
 *
 *   --context-queue        one out-of-order context queue (device NULL); the
 *                          policy of the context places every command
 *   --policy NAME          that policy (CL_CONTEXT_SCHEDULER_PARASOL), default heft
 *   --round-robin          one queue per device, block b on device b % ndev
 *   --vendor PREFIX        only devices whose vendor platform name starts with PREFIX
 *   --n N  --blocks B  --iterations I   the problem's size and split
 *
 * Everything here is ordinary OpenCL plus cl_parasol.h: an example links the
 * ICD loader, never Parasol. */
#ifndef PARASOL_EXAMPLE_UTIL_H
#define PARASOL_EXAMPLE_UTIL_H

#include <CL/cl.h>
#include <CL/cl_parasol.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                     \
  do {                                                                                  \
    cl_int err_ = (call);                                                               \
    if (err_ != CL_SUCCESS) {                                                           \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, err_);       \
      exit(1);                                                                          \
    }                                                                                   \
  } while (0)

enum example_mode { MODE_CONTEXT_QUEUE, MODE_ROUND_ROBIN };

struct example_options {
  enum example_mode mode;
  const char* policy;
  const char* vendor; /* NULL: every Parasol device */
  size_t n;
  unsigned blocks;
  unsigned iterations;
};

struct example_setup {
  cl_platform_id platform;
  cl_uint ndev;
  cl_device_id* devices;
  cl_context ctx;
  cl_command_queue context_queue; /* MODE_CONTEXT_QUEUE */
  cl_command_queue* device_queues; /* MODE_ROUND_ROBIN: one per device */
  enum example_mode mode;
};

/* Consumes one common option at argv[*i] (and its value); returns 0 if the
 * option is not a common one, so that the example may handle it. */
static inline int example_parse_option(struct example_options* o, int argc, char** argv, int* i) {
  const char* a = argv[*i];
  const char* value = *i + 1 < argc ? argv[*i + 1] : NULL;
  if (!strcmp(a, "--context-queue")) { o->mode = MODE_CONTEXT_QUEUE; return 1; }
  if (!strcmp(a, "--round-robin")) { o->mode = MODE_ROUND_ROBIN; return 1; }
  if (!value) return 0;
  if (!strcmp(a, "--policy")) o->policy = value;
  else if (!strcmp(a, "--vendor")) o->vendor = value;
  else if (!strcmp(a, "--n")) o->n = strtoul(value, NULL, 10);
  else if (!strcmp(a, "--blocks")) o->blocks = (unsigned)strtoul(value, NULL, 10);
  else if (!strcmp(a, "--iterations")) o->iterations = (unsigned)strtoul(value, NULL, 10);
  else return 0;
  ++*i;
  return 1;
}

static inline void example_usage(const char* prog, const char* extra) {
  fprintf(stderr,
          "usage: %s [--context-queue [--policy NAME] | --round-robin] [--vendor PREFIX]\n"
          "          [--n N] [--blocks B] [--iterations I]%s\n",
          prog, extra ? extra : "");
}

static inline cl_platform_id example_find_parasol(void) {
  cl_uint n = 0;
  CHECK(clGetPlatformIDs(0, NULL, &n));
  cl_platform_id* ids = malloc(n * sizeof *ids);
  CHECK(clGetPlatformIDs(n, ids, NULL));
  cl_platform_id found = NULL;
  for (cl_uint i = 0; i < n && !found; ++i) {
    char name[128] = "";
    clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (!strcmp(name, "Parasol")) found = ids[i];
  }
  free(ids);
  return found;
}

/* "name [vendor]" of a Parasol device, in a static buffer (one at a time). */
static inline const char* example_device_label(cl_device_id d) {
  static char label[600];
  char name[256] = "?", vendor[256] = "?";
  if (d) {
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(d, CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL, sizeof vendor, vendor, NULL);
  }
  snprintf(label, sizeof label, "%s [%s]", name, vendor);
  return label;
}

static inline clGetDeviceStatsPARASOL_fn example_stats_fn(cl_platform_id p) {
  return (clGetDeviceStatsPARASOL_fn)clGetExtensionFunctionAddressForPlatform(
      p, "clGetDeviceStatsPARASOL");
}

/* The Parasol devices the options select, a context over them (with the
 * policy for a context queue) and the queues of the chosen mode. Exits with
 * status 2 when there is no Parasol platform or no matching device. */
static inline void example_setup_open(struct example_setup* s, const struct example_options* o) {
  memset(s, 0, sizeof *s);
  s->mode = o->mode;
  s->platform = example_find_parasol();
  if (!s->platform) {
    fprintf(stderr, "Parasol platform not found: is parasol.icd registered?\n");
    exit(2);
  }
  cl_uint all = 0;
  CHECK(clGetDeviceIDs(s->platform, CL_DEVICE_TYPE_ALL, 0, NULL, &all));
  cl_device_id* ids = malloc(all * sizeof *ids);
  CHECK(clGetDeviceIDs(s->platform, CL_DEVICE_TYPE_ALL, all, ids, NULL));
  s->devices = malloc(all * sizeof *ids);
  for (cl_uint d = 0; d < all; ++d) {
    char vendor[256] = "";
    clGetDeviceInfo(ids[d], CL_DEVICE_VENDOR_PLATFORM_NAME_PARASOL, sizeof vendor, vendor, NULL);
    if (!o->vendor || !strncmp(vendor, o->vendor, strlen(o->vendor))) s->devices[s->ndev++] = ids[d];
  }
  free(ids);
  if (!s->ndev) {
    fprintf(stderr, "no Parasol device of vendor '%s'\n", o->vendor ? o->vendor : "");
    exit(2);
  }
  printf("%u Parasol devices:\n", s->ndev);
  for (cl_uint d = 0; d < s->ndev; ++d) printf("  device %u: %s\n", d, example_device_label(s->devices[d]));

  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)s->platform,
                                   CL_CONTEXT_SCHEDULER_PARASOL, (cl_context_properties)o->policy,
                                   0};
  if (o->mode != MODE_CONTEXT_QUEUE) props[2] = 0; /* device queues: no policy to choose */
  cl_int err;
  s->ctx = clCreateContext(props, s->ndev, s->devices, NULL, NULL, &err);
  CHECK(err);
  if (o->mode == MODE_CONTEXT_QUEUE) {
    /* Out of order: blocks are independent, so the policy may run them on
     * several devices at once; each block's chain is ordered by events. */
    s->context_queue = clCreateCommandQueue(s->ctx, NULL, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    CHECK(err);
    char used[64] = "?";
    clGetContextInfo(s->ctx, CL_CONTEXT_SCHEDULER_PARASOL, sizeof used, used, NULL);
    printf("mode: one context queue, policy %s\n", used);
  } else {
    s->device_queues = malloc(s->ndev * sizeof *s->device_queues);
    for (cl_uint d = 0; d < s->ndev; ++d) {
      s->device_queues[d] = clCreateCommandQueue(s->ctx, s->devices[d], 0, &err);
      CHECK(err);
    }
    printf("mode: round robin over %u device queues\n", s->ndev);
  }
  clResetDeviceStatsPARASOL_fn reset = (clResetDeviceStatsPARASOL_fn)
      clGetExtensionFunctionAddressForPlatform(s->platform, "clResetDeviceStatsPARASOL");
  if (reset)
    for (cl_uint d = 0; d < s->ndev; ++d) reset(s->devices[d]);
}

static inline cl_command_queue example_queue_for(const struct example_setup* s, unsigned block) {
  return s->mode == MODE_CONTEXT_QUEUE ? s->context_queue : s->device_queues[block % s->ndev];
}

static inline cl_program example_build(const struct example_setup* s, const char* source) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(s->ctx, 1, &source, NULL, &err);
  CHECK(err);
  err = clBuildProgram(p, 0, NULL, NULL, NULL, NULL);
  if (err != CL_SUCCESS) {
    for (cl_uint d = 0; d < s->ndev; ++d) {
      char log[8192] = "";
      clGetProgramBuildInfo(p, s->devices[d], CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
      fprintf(stderr, "build log on %s:\n%s\n", example_device_label(s->devices[d]), log);
    }
    CHECK(err);
  }
  return p;
}

/* Index in s->devices of the device that ran a command (CL_EVENT_DEVICE_PARASOL), -1 if none. */
static inline int example_device_index(const struct example_setup* s, cl_event e) {
  cl_device_id ran = NULL;
  CHECK(clGetEventInfo(e, CL_EVENT_DEVICE_PARASOL, sizeof ran, &ran, NULL));
  for (cl_uint d = 0; d < s->ndev; ++d)
    if (s->devices[d] == ran) return (int)d;
  return -1;
}

/* Where each block ran, one line per block: events[r * blocks + b] is block
 * b's command of round r (an iteration). */
static inline void example_print_placement(const struct example_setup* s, const char* what,
                                           cl_event* events, unsigned blocks, unsigned rounds) {
  printf("device that ran each %s, per iteration:\n", what);
  for (unsigned b = 0; b < blocks; ++b) {
    printf("  block %3u:", b);
    for (unsigned r = 0; r < rounds; ++r) printf(" %d", example_device_index(s, events[r * blocks + b]));
    printf("\n");
  }
}

/* Commands, busy time and bytes moved per device since example_setup_open. */
static inline void example_print_stats(const struct example_setup* s) {
  clGetDeviceStatsPARASOL_fn stats = example_stats_fn(s->platform);
  if (!stats) return;
  printf("per-device statistics:\n");
  for (cl_uint d = 0; d < s->ndev; ++d) {
    cl_parasol_device_stats st;
    memset(&st, 0, sizeof st);
    CHECK(stats(s->devices[d], &st));
    printf("  %-60s %6llu commands, busy %9.3f ms, %10llu B in, %10llu B out\n",
           example_device_label(s->devices[d]), (unsigned long long)st.commands, st.busy_ns * 1e-6,
           (unsigned long long)st.bytes_in, (unsigned long long)st.bytes_out);
  }
}

static inline void example_setup_close(struct example_setup* s) {
  if (s->context_queue) clReleaseCommandQueue(s->context_queue);
  if (s->device_queues) {
    for (cl_uint d = 0; d < s->ndev; ++d) clReleaseCommandQueue(s->device_queues[d]);
    free(s->device_queues);
  }
  clReleaseContext(s->ctx);
  free(s->devices);
}

/* Replaces *slot with e, releasing the event it held. */
static inline void example_chain(cl_event* slot, cl_event e) {
  if (*slot) clReleaseEvent(*slot);
  *slot = e;
}

#endif /* PARASOL_EXAMPLE_UTIL_H */
