/* nbody: all-pairs gravitation, n bodies. Every step runs K sub-kernels, each
 * computing the accelerations of one range of bodies into its own output
 * buffer (the K outputs are disjoint), then updates positions and velocities
 * either with a kernel (the K accelerations gathered by buffer copies) or on
 * the host (the accelerations read back, the positions written again). The
 * sub-kernels go to one context queue (the context's policy places them) or
 * round robin to the devices' queues. Prints where each sub-kernel ran and
 * per-device statistics, and checks the positions against a CPU (double)
 * reference of the same steps: exit status 1 on a mismatch.
 *
 *   nbody [--context-queue [--policy heft] | --round-robin] [--vendor PREFIX]
 *         [--n 512] [--blocks 4] [--iterations 3] [--update kernel|host] */
#include "common/example_util.h"
#include "nbody/nbody_kernels.h"

struct block {
  cl_uint first, count;
  cl_mem acc;
};

int main(int argc, char** argv) {
  struct example_options o = {MODE_CONTEXT_QUEUE, "heft", NULL, 512, 4, 3};
  int host_update = 0;
  for (int i = 1; i < argc; ++i) {
    if (example_parse_option(&o, argc, argv, &i)) continue;
    if (!strcmp(argv[i], "--update") && i + 1 < argc &&
        (!strcmp(argv[i + 1], "host") || !strcmp(argv[i + 1], "kernel"))) {
      host_update = !strcmp(argv[++i], "host");
      continue;
    }
    example_usage(argv[0], " [--update kernel|host]");
    return 2;
  }
  if (o.blocks == 0 || o.n < o.blocks || o.iterations == 0) {
    example_usage(argv[0], " [--update kernel|host]");
    return 2;
  }
  struct example_setup s;
  example_setup_open(&s, &o);
  size_t n = o.n;
  printf("%zu bodies, %u sub-kernels per step, %u steps, update on the %s\n", n, o.blocks,
         o.iterations, host_update ? "host" : "device (kernel)");

  cl_program prog = example_build(&s, kNbodySource);
  cl_int err;
  cl_kernel forces = clCreateKernel(prog, "nbody_forces", &err);
  CHECK(err);
  cl_kernel update = clCreateKernel(prog, "nbody_update", &err);
  CHECK(err);

  size_t bytes = n * 4 * sizeof(float);
  float* pos = malloc(bytes);
  float* vel = calloc(n * 4, sizeof(float));
  float* acc = malloc(bytes);
  for (size_t i = 0; i < n; ++i) nbody_initial(i, n, &pos[4 * i]);
  cl_mem buf_pos = clCreateBuffer(s.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, pos, &err);
  CHECK(err);
  cl_mem buf_vel = clCreateBuffer(s.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, vel, &err);
  CHECK(err);
  cl_mem buf_acc = clCreateBuffer(s.ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  CHECK(err);
  struct block* blocks = calloc(o.blocks, sizeof *blocks);
  for (unsigned b = 0; b < o.blocks; ++b) {
    blocks[b].first = (cl_uint)(n * b / o.blocks);
    blocks[b].count = (cl_uint)(n * (b + 1) / o.blocks) - blocks[b].first;
    blocks[b].acc = clCreateBuffer(s.ctx, CL_MEM_READ_WRITE, blocks[b].count * 4 * sizeof(float), NULL, &err);
    CHECK(err);
  }

  /* `ready`: the command after which the positions of this step are in
   * buf_pos; every sub-kernel of the step waits for it. Commands that write
   * one shared buffer (the gathering copies) are chained one after another. */
  cl_event ready = NULL;
  cl_event* events = malloc((size_t)o.iterations * o.blocks * sizeof *events);
  cl_event* done = malloc(o.blocks * sizeof *done);
  cl_uint nn = (cl_uint)n;
  float eps2 = NBODY_EPS2, dt = NBODY_DT;
  for (unsigned it = 0; it < o.iterations; ++it) {
    for (unsigned b = 0; b < o.blocks; ++b) {
      struct block* bl = &blocks[b];
      size_t global = bl->count;
      CHECK(clSetKernelArg(forces, 0, sizeof(cl_mem), &buf_pos));
      CHECK(clSetKernelArg(forces, 1, sizeof(cl_mem), &bl->acc));
      CHECK(clSetKernelArg(forces, 2, sizeof nn, &nn));
      CHECK(clSetKernelArg(forces, 3, sizeof bl->first, &bl->first));
      CHECK(clSetKernelArg(forces, 4, sizeof bl->count, &bl->count));
      CHECK(clSetKernelArg(forces, 5, sizeof eps2, &eps2));
      cl_event* e = &events[it * o.blocks + b];
      CHECK(clEnqueueNDRangeKernel(example_queue_for(&s, b), forces, 1, NULL, &global, NULL,
                                   ready ? 1 : 0, ready ? &ready : NULL, e));
    }
    if (host_update) {
      for (unsigned b = 0; b < o.blocks; ++b)
        CHECK(clEnqueueReadBuffer(example_queue_for(&s, b), blocks[b].acc, CL_FALSE, 0,
                                  blocks[b].count * 4 * sizeof(float), acc + 4 * (size_t)blocks[b].first,
                                  1, &events[it * o.blocks + b], &done[b]));
      CHECK(clWaitForEvents(o.blocks, done));
      for (unsigned b = 0; b < o.blocks; ++b) clReleaseEvent(done[b]);
      nbody_update_host(pos, vel, acc, n, dt);
      cl_event written;
      CHECK(clEnqueueWriteBuffer(example_queue_for(&s, 0), buf_pos, CL_TRUE, 0, bytes, pos, 0, NULL, &written));
      example_chain(&ready, written);
    } else {
      cl_event gathered = NULL;
      for (unsigned b = 0; b < o.blocks; ++b) {
        cl_event wait[2] = {events[it * o.blocks + b], gathered}, copied;
        CHECK(clEnqueueCopyBuffer(example_queue_for(&s, b), blocks[b].acc, buf_acc, 0,
                                  (size_t)blocks[b].first * 4 * sizeof(float),
                                  blocks[b].count * 4 * sizeof(float), gathered ? 2 : 1, wait, &copied));
        example_chain(&gathered, copied);
      }
      size_t global = n;
      CHECK(clSetKernelArg(update, 0, sizeof(cl_mem), &buf_pos));
      CHECK(clSetKernelArg(update, 1, sizeof(cl_mem), &buf_vel));
      CHECK(clSetKernelArg(update, 2, sizeof(cl_mem), &buf_acc));
      CHECK(clSetKernelArg(update, 3, sizeof dt, &dt));
      CHECK(clSetKernelArg(update, 4, sizeof nn, &nn));
      cl_event updated;
      CHECK(clEnqueueNDRangeKernel(example_queue_for(&s, it), update, 1, NULL, &global, NULL, 1,
                                   &gathered, &updated));
      clReleaseEvent(gathered);
      example_chain(&ready, updated);
    }
  }
  if (!host_update)
    CHECK(clEnqueueReadBuffer(example_queue_for(&s, 0), buf_pos, CL_TRUE, 0, bytes, pos, 1, &ready, NULL));
  if (s.context_queue) CHECK(clFinish(s.context_queue));
  for (cl_uint d = 0; s.device_queues && d < s.ndev; ++d) CHECK(clFinish(s.device_queues[d]));

  example_print_placement(&s, "force sub-kernel", events, o.blocks, o.iterations);
  example_print_stats(&s);

  size_t bad = nbody_check(pos, n, o.iterations, dt, eps2);
  printf("%s: %zu of %zu coordinates differ from the CPU reference\n", bad ? "FAILED" : "OK", bad, 3 * n);

  for (unsigned i = 0; i < o.iterations * o.blocks; ++i) clReleaseEvent(events[i]);
  if (ready) clReleaseEvent(ready);
  for (unsigned b = 0; b < o.blocks; ++b) clReleaseMemObject(blocks[b].acc);
  clReleaseMemObject(buf_pos); clReleaseMemObject(buf_vel); clReleaseMemObject(buf_acc);
  clReleaseKernel(forces); clReleaseKernel(update);
  clReleaseProgram(prog);
  example_setup_close(&s);
  free(events); free(done); free(blocks); free(pos); free(vel); free(acc);
  return bad ? 1 : 0;
}
