#include "util/settings.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "util/log.h"

namespace parasol::settings {
namespace {

const char* text(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// Set to anything but "0".
bool flag(const char* name) {
  const char* v = text(name);
  return v && std::strcmp(v, "0") != 0;
}

// On unless set to "0".
bool unless_zero(const char* name) {
  const char* v = text(name);
  return !(v && std::strcmp(v, "0") == 0);
}

}  // namespace

int log_level() {
  static const int level = [] {
    const char* v = text("PARASOL_LOG");
    if (!v) return 1;
    if (!std::strcmp(v, "error")) return 0;
    if (!std::strcmp(v, "info")) return 2;
    if (!std::strcmp(v, "debug")) return 3;
    return 1;
  }();
  return level;
}

bool socl() {
  static const bool on = flag("PARASOL_SOCL");
  return on;
}

const std::string& scheduler() {
  static const std::string name = text("PARASOL_SCHED") ? text("PARASOL_SCHED") : "";
  return name;
}

bool direct() {
  static const bool on = unless_zero("PARASOL_DIRECT");
  return on;
}

bool split() {
  static const bool on = unless_zero("PARASOL_SPLIT");
  return on;
}

std::optional<unsigned> lanes(unsigned max) {
  static const std::optional<unsigned> n = [max]() -> std::optional<unsigned> {
    const char* v = text("PARASOL_LANES");
    if (!v) return std::nullopt;
    const long n = std::strtol(v, nullptr, 10);
    if (n < 1 || n > static_cast<long>(max)) {
      log::warn("PARASOL_LANES=", v, " is not within 1 to ", max, ": the default applies");
      return std::nullopt;
    }
    return static_cast<unsigned>(n);
  }();
  return n;
}

bool park_workers() {
  static const bool on = unless_zero("PARASOL_PARK_WORKERS");
  return on;
}

bool stats() {
  static const bool on = flag("PARASOL_STATS");
  return on;
}

const std::string& trace_path() {
  static const std::string path = text("PARASOL_TRACE") ? text("PARASOL_TRACE") : "";
  return path;
}

bool native_device() {
  static const bool on = unless_zero("PARASOL_NATIVE_DEVICE");
  return on;
}

std::optional<unsigned> native_threads() {
  static const std::optional<unsigned> n = []() -> std::optional<unsigned> {
    const char* v = text("PARASOL_NATIVE_THREADS");
    if (!v) return std::nullopt;
    return static_cast<unsigned>(std::strtoul(v, nullptr, 10));
  }();
  return n;
}

std::optional<double> divide_knob(const char* name) {
  const std::string var = std::string("PARASOL_DIVIDE_") + name;
  const char* v = text(var.c_str());
  if (!v) return std::nullopt;
  return std::atof(v);
}

MpiPlace mpi_place() {
  static const MpiPlace place = [] {
    MpiPlace p;
    const char* rank = text("OMPI_COMM_WORLD_RANK");
    const char* size = text("OMPI_COMM_WORLD_SIZE");
    if (!rank || !size) return p;
    p.rank = std::atoi(rank);
    p.size = std::max(1, std::atoi(size));
    return p;
  }();
  return place;
}

bool remote_devices() {
  static const bool on = flag("PARASOL_REMOTE_DEVICES");
  return on;
}

double cluster_timeout_s() {
  static const double seconds = [] {
    const char* v = text("PARASOL_CLUSTER_TIMEOUT");
    if (!v) return 60.0;
    const double s = std::atof(v);
    if (s > 0) return s;
    log::warn("PARASOL_CLUSTER_TIMEOUT=", v, " is not a positive number of seconds: 60 applies");
    return 60.0;
  }();
  return seconds;
}

bool starpu_opencl_on_cpus() {
  const char* v = text("STARPU_OPENCL_ON_CPUS");
  return v && std::atoi(v) != 0;
}

const char* starpu_nopencl() { return text("STARPU_NOPENCL"); }

}  // namespace parasol::settings
