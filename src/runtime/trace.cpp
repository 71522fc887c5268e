#include "runtime/trace.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/command_queue.h"
#include "core/event.h"
#include "core/platform.h"
#include "util/clock.h"
#include "util/error_name.h"
#include "util/log.h"
#include "util/settings.h"

namespace parasol::runtime::trace {
namespace detail {
std::atomic<bool> g_enabled{false};
}
namespace {

struct Record {
  std::uint64_t start_ns, end_ns, submit_ns, running_ns;
  const core::Device* device;  // null: host transfers
  std::string name;
  std::uint64_t event_id;
  cl_command_type type;
  const char* queue_kind;
  std::size_t bytes;
  cl_int status;
  std::size_t split_groups = 0;  // a part of a split launch: its work-groups
};

// Never destroyed: commands may still finish while static destructors run.
struct Recorder {
  std::mutex mutex;
  std::vector<Record> records;
  std::string path;
};
Recorder& recorder() {
  static Recorder* r = new Recorder;
  return *r;
}

// Reads PARASOL_TRACE when the library loads, before any command can run.
[[maybe_unused]] const bool g_configured = [] {
  const std::string& path = settings::trace_path();
  if (path.empty()) return false;
  recorder().path = path;
  recorder().records.reserve(4096);
  detail::g_enabled.store(true, std::memory_order_relaxed);
  return true;
}();

struct CommandNames {
  const char* label;  // the event's name in the trace
  const char* type;   // the args' "command"
};

CommandNames names_of(cl_command_type type) {
  switch (type) {
    case CL_COMMAND_NDRANGE_KERNEL: return {"kernel", "CL_COMMAND_NDRANGE_KERNEL"};
    case CL_COMMAND_TASK: return {"task", "CL_COMMAND_TASK"};
    case CL_COMMAND_READ_BUFFER: return {"read buffer", "CL_COMMAND_READ_BUFFER"};
    case CL_COMMAND_WRITE_BUFFER: return {"write buffer", "CL_COMMAND_WRITE_BUFFER"};
    case CL_COMMAND_COPY_BUFFER: return {"copy buffer", "CL_COMMAND_COPY_BUFFER"};
    case CL_COMMAND_FILL_BUFFER: return {"fill buffer", "CL_COMMAND_FILL_BUFFER"};
    case CL_COMMAND_READ_BUFFER_RECT: return {"read buffer rect", "CL_COMMAND_READ_BUFFER_RECT"};
    case CL_COMMAND_WRITE_BUFFER_RECT:
      return {"write buffer rect", "CL_COMMAND_WRITE_BUFFER_RECT"};
    case CL_COMMAND_COPY_BUFFER_RECT: return {"copy buffer rect", "CL_COMMAND_COPY_BUFFER_RECT"};
    case CL_COMMAND_MAP_BUFFER: return {"map", "CL_COMMAND_MAP_BUFFER"};
    case CL_COMMAND_UNMAP_MEM_OBJECT: return {"unmap", "CL_COMMAND_UNMAP_MEM_OBJECT"};
    case CL_COMMAND_MIGRATE_MEM_OBJECTS: return {"migrate", "CL_COMMAND_MIGRATE_MEM_OBJECTS"};
    case CL_COMMAND_MARKER: return {"marker", "CL_COMMAND_MARKER"};
    case CL_COMMAND_BARRIER: return {"barrier", "CL_COMMAND_BARRIER"};
    default: return {"command", "CL_COMMAND_?"};
  }
}

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char esc[8];
          std::snprintf(esc, sizeof esc, "\\u%04x", c);
          out += esc;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// Microseconds, to the nanosecond.
std::string micros(std::uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu.%03llu", static_cast<unsigned long long>(ns / 1000),
                static_cast<unsigned long long>(ns % 1000));
  return buf;
}

void append_metadata(std::string& out, long pid, long tid, const char* what,
                     const std::string& key, const std::string& value_json) {
  out += "{\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
         ",\"name\":\"" + what + "\",\"args\":{\"" + key + "\":" + value_json + "}},\n";
}

}  // namespace

void record(const core::Event& event, const char* name, std::size_t bytes, cl_int status) {
  const core::CommandQueue* q = event.queue();
  const core::Device* device = event.executed_on();
  Record r{device ? event.time_start() : event.time_submit(),
           now_ns(),
           event.time_submit(),
           event.time_start(),
           device,
           name ? name : names_of(event.command_type()).label,
           event.id(),
           event.command_type(),
           !q ? "none" : q->device() ? "device" : "context",
           bytes,
           status};
  Recorder& rec = recorder();
  std::lock_guard lock(rec.mutex);
  rec.records.push_back(std::move(r));
}

void record_part(const core::Event& event, const core::Device& device, const char* name,
                 std::uint64_t start_ns, std::uint64_t end_ns, std::size_t groups,
                 std::size_t bytes, cl_int status) {
  const core::CommandQueue* q = event.queue();
  Record r{start_ns, end_ns, event.time_submit(), start_ns, &device, name, event.id(),
           event.command_type(), !q ? "none" : q->device() ? "device" : "context",
           bytes, status, groups};
  Recorder& rec = recorder();
  std::lock_guard lock(rec.mutex);
  rec.records.push_back(std::move(r));
}

void write_file() {
  Recorder& rec = recorder();
  std::lock_guard lock(rec.mutex);
  if (!detail::g_enabled.exchange(false)) return;

  // Lanes: device i is tid i + 1, in the platform's order; host transfers last.
  auto devices = core::Platform::instance().devices();
  const long pid = static_cast<long>(getpid());
  const long host_tid = static_cast<long>(devices.size()) + 1;
  auto tid_of = [&](const core::Device* d) -> long {
    auto it = std::find(devices.begin(), devices.end(), d);
    return it == devices.end() ? host_tid : static_cast<long>(it - devices.begin()) + 1;
  };

  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  std::string process_name;
  append_json_string(process_name, "Parasol");
  append_metadata(out, pid, 0, "process_name", "name", process_name);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    std::string lane;
    append_json_string(lane,
                       devices[i]->name() + " [" + devices[i]->vendor_platform_name() + "]");
    append_metadata(out, pid, static_cast<long>(i) + 1, "thread_name", "name", lane);
    append_metadata(out, pid, static_cast<long>(i) + 1, "thread_sort_index", "sort_index",
                    std::to_string(i + 1));
  }
  append_metadata(out, pid, host_tid, "thread_name", "name", "\"host transfers\"");
  append_metadata(out, pid, host_tid, "thread_sort_index", "sort_index",
                  std::to_string(host_tid));

  // Time 0 is the first command's start: small numbers, the same clock.
  std::uint64_t origin = UINT64_MAX;
  for (const Record& r : rec.records) origin = std::min(origin, std::min(r.start_ns, r.submit_ns));
  for (const Record& r : rec.records) {
    const CommandNames names = names_of(r.type);
    out += "{\"ph\":\"X\",\"pid\":" + std::to_string(pid) +
           ",\"tid\":" + std::to_string(tid_of(r.device)) + ",\"name\":";
    append_json_string(out, r.name);
    out += ",\"cat\":\"";
    out += r.type == CL_COMMAND_NDRANGE_KERNEL || r.type == CL_COMMAND_TASK ? "kernel" : "transfer";
    out += "\",\"ts\":" + micros(r.start_ns - origin) +
           ",\"dur\":" + micros(r.end_ns > r.start_ns ? r.end_ns - r.start_ns : 0);
    if (r.status < 0) out += ",\"cname\":\"terrible\"";
    out += ",\"args\":{\"event\":" + std::to_string(r.event_id) + ",\"command\":\"" + names.type +
           "\",\"queue\":\"" + r.queue_kind + "\"";
    if (r.bytes) out += ",\"bytes\":" + std::to_string(r.bytes);
    if (r.split_groups) out += ",\"split_groups\":" + std::to_string(r.split_groups);
    // Device commands: the time from ready (every dependency done) to the
    // device starting it: StarPU placing it and moving its buffers there.
    // Host commands: the part of the bar spent bringing the buffers to main RAM.
    const std::uint64_t ready_ns = r.submit_ns ? r.submit_ns : r.start_ns;
    if (r.device && r.start_ns > ready_ns)
      out += ",\"queued_us\":" + micros(r.start_ns - ready_ns);
    if (!r.device && r.running_ns > r.start_ns)
      out += ",\"data_wait_us\":" + micros(r.running_ns - r.start_ns);
    if (r.status < 0)
      out += ",\"status\":\"" + std::string(error_name(r.status)) + " (" +
             std::to_string(r.status) + ")\"";
    out += "}},\n";
  }
  out.erase(out.size() - 2);  // the last ",\n"
  out += "\n]}\n";

  std::FILE* f = std::fopen(rec.path.c_str(), "w");
  if (!f || std::fwrite(out.data(), 1, out.size(), f) != out.size()) {
    log::error("cannot write the trace to '", rec.path, "' (PARASOL_TRACE)");
    if (f) std::fclose(f);
    return;
  }
  std::fclose(f);
  log::info("trace of ", rec.records.size(), " commands on ", devices.size(),
            " devices written to ", rec.path);
}

}  // namespace parasol::runtime::trace
