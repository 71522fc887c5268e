/* image-pipeline: an RGBA image through a chain of filters, each step on the
 * next device (--round-robin, the default: vendors mixed, each step waits for
 * the one before through its event) or placed by the context's policy
 * (--context-queue). Two images take turns as source and destination: a 3x3
 * blur read through a sampler object, then a tone curve read through a
 * sampler declared in the kernel. Prints where each step ran and checks the
 * final image against the same chain computed on the CPU.
 *
 *   image_pipeline [--round-robin | --context-queue [--policy NAME]]
 *                  [--vendor PREFIX] [--n SIZE] [--iterations I]
 */
#include <math.h>

#include "common/example_util.h"

static const char* kSource =
    "__kernel void blur(__read_only image2d_t src, __write_only image2d_t dst, sampler_t s) {\n"
    "  int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "  float4 sum = (float4)(0.0f);\n"
    "  for (int dy = -1; dy <= 1; ++dy)\n"
    "    for (int dx = -1; dx <= 1; ++dx) sum += read_imagef(src, s, p + (int2)(dx, dy));\n"
    "  write_imagef(dst, p, sum / 9.0f);\n"
    "}\n"
    "__constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE |\n"
    "                               CLK_FILTER_NEAREST;\n"
    "__kernel void tone(__read_only image2d_t src, __write_only image2d_t dst) {\n"
    "  int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "  float4 v = read_imagef(src, nearest, p);\n"
    "  write_imagef(dst, p, 0.8f * (1.0f - v) + 0.1f);\n"
    "}\n";

/* write_imagef to CL_UNORM_INT8: round to nearest even of the clamped value x 255. */
static unsigned char unorm8(float v) {
  v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
  return (unsigned char)nearbyintf(v * 255.0f);
}

static void blur_cpu(const unsigned char* src, unsigned char* dst, int n) {
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      for (int c = 0; c < 4; ++c) {
        float sum = 0.0f;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            int sx = x + dx < 0 ? 0 : x + dx >= n ? n - 1 : x + dx; /* clamp to edge */
            int sy = y + dy < 0 ? 0 : y + dy >= n ? n - 1 : y + dy;
            sum += src[(sy * n + sx) * 4 + c] / 255.0f;
          }
        dst[(y * n + x) * 4 + c] = unorm8(sum / 9.0f);
      }
}

static void tone_cpu(const unsigned char* src, unsigned char* dst, int n) {
  for (int i = 0; i < n * n * 4; ++i) dst[i] = unorm8(0.8f * (1.0f - src[i] / 255.0f) + 0.1f);
}

int main(int argc, char** argv) {
  struct example_options o = {MODE_ROUND_ROBIN, "heft", NULL, 256, 0, 2};
  for (int i = 1; i < argc; ++i)
    if (!example_parse_option(&o, argc, argv, &i)) {
      example_usage(argv[0], NULL);
      return 2;
    }
  const int n = (int)o.n;
  struct example_setup s;
  example_setup_open(&s, &o);
  for (cl_uint d = 0; d < s.ndev; ++d) {
    cl_bool images = CL_FALSE;
    CHECK(clGetDeviceInfo(s.devices[d], CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL));
    if (!images) {
      fprintf(stderr, "%s has no image support: choose devices with --vendor\n",
              example_device_label(s.devices[d]));
      return 2;
    }
  }

  cl_program prog = example_build(&s, kSource);
  cl_int err;
  cl_kernel blur = clCreateKernel(prog, "blur", &err);
  CHECK(err);
  cl_kernel tone = clCreateKernel(prog, "tone", &err);
  CHECK(err);
  cl_sampler clamp = clCreateSampler(s.ctx, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST,
                                     &err);
  CHECK(err);

  /* A pattern with edges and gradients, so that both filters change it. */
  const size_t bytes = (size_t)n * n * 4;
  unsigned char* pixels = malloc(bytes);
  unsigned char* ref = malloc(bytes);
  unsigned char* tmp = malloc(bytes);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      unsigned char* p = pixels + (y * n + x) * 4;
      p[0] = (unsigned char)(x * 255 / (n - 1));
      p[1] = (unsigned char)(y * 255 / (n - 1));
      p[2] = ((x / 16 + y / 16) % 2) ? 230 : 20;
      p[3] = (unsigned char)((x * y) % 256);
    }
  memcpy(ref, pixels, bytes);

  const cl_image_format format = {CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = (size_t)n;
  desc.image_height = (size_t)n;
  cl_mem images[2];
  images[0] = clCreateImage(s.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &format, &desc,
                            pixels, &err);
  CHECK(err);
  images[1] = clCreateImage(s.ctx, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);
  CHECK(err);

  const unsigned steps = 2 * o.iterations;
  cl_event* events = calloc(steps, sizeof *events);
  const size_t global[2] = {(size_t)n, (size_t)n};
  for (unsigned step = 0; step < steps; ++step) {
    cl_mem src = images[step % 2], dst = images[(step + 1) % 2];
    cl_kernel k = step % 2 ? tone : blur;
    CHECK(clSetKernelArg(k, 0, sizeof src, &src));
    CHECK(clSetKernelArg(k, 1, sizeof dst, &dst));
    if (k == blur) CHECK(clSetKernelArg(k, 2, sizeof clamp, &clamp));
    cl_event* before = step ? &events[step - 1] : NULL;
    CHECK(clEnqueueNDRangeKernel(example_queue_for(&s, step), k, 2, NULL, global, NULL,
                                 before ? 1 : 0, before, &events[step]));
    if (k == blur)
      blur_cpu(ref, tmp, n);
    else
      tone_cpu(ref, tmp, n);
    memcpy(ref, tmp, bytes);
  }
  const size_t origin[3] = {0, 0, 0}, region[3] = {(size_t)n, (size_t)n, 1};
  CHECK(clEnqueueReadImage(example_queue_for(&s, 0), images[steps % 2], CL_TRUE, origin, region,
                           0, 0, pixels, steps ? 1 : 0, steps ? &events[steps - 1] : NULL, NULL));

  for (unsigned step = 0; step < steps; ++step) {
    cl_device_id ran = NULL;
    CHECK(clGetEventInfo(events[step], CL_EVENT_DEVICE_PARASOL, sizeof ran, &ran, NULL));
    printf("step %2u (%s) ran on %s\n", step, step % 2 ? "tone" : "blur", example_device_label(ran));
    clReleaseEvent(events[step]);
  }
  /* Devices may round a sum differently by one unit: a difference of one
   * or two units per step is the same result. */
  int worst = 0;
  size_t off = 0;
  for (size_t i = 0; i < bytes; ++i) {
    int diff = abs((int)pixels[i] - (int)ref[i]);
    if (diff > worst) worst = diff;
    if (diff > 2) ++off;
  }
  printf("%s: %zu of %zu channel values differ from the CPU reference by more than 2 "
         "(largest difference %d)\n",
         off ? "FAILED" : "OK", off, bytes, worst);

  clReleaseMemObject(images[0]);
  clReleaseMemObject(images[1]);
  clReleaseSampler(clamp);
  clReleaseKernel(blur);
  clReleaseKernel(tone);
  clReleaseProgram(prog);
  example_setup_close(&s);
  free(events);
  free(pixels);
  free(ref);
  free(tmp);
  return off ? 1 : 0;
}
