#!/usr/bin/python3
"""The tracing tests: run a program in the suite's configuration with
PARASOL_TRACE / PARASOL_LOG and check what Parasol wrote.

  check_trace.py hello-mixed SUITE_ENV HELLO_MIXED OUT_DIR
      the trace of examples/hello-mixed: a lane per device plus host, every
      step on the lane of the device the example says ran it, no overlap
      within a device lane, args complete
  check_trace.py gantt GANTT_SCRIPT OUT_DIR
      trace-gantt.py renders that trace as a valid PNG of sensible size
  check_trace.py log SUITE_ENV CONTEXT_QUEUE_RUN OUT_DIR
      PARASOL_LOG=info names every device with its vendor, the context's
      policy and its devices; the trace shows the kernel on a context queue
  check_trace.py failure SUITE_ENV CONTEXT_QUEUE_RUN OUT_DIR
      a launch the vendor refuses: the log names the kernel, device, vendor
      and error; the trace shows the command failed, with its status
"""
import json
import os
import re
import subprocess
import sys


class Failure(Exception):
    pass


def require(cond, message):
    if not cond:
        raise Failure(message)


class Skipped(Exception):
    pass


def run(cmd, env_extra):
    env = dict(os.environ)
    env.update(env_extra)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=100)
    if p.returncode == 77:
        raise Skipped(p.stdout.strip())
    require(p.returncode == 0, "%s exited with %d\nstdout:\n%s\nstderr:\n%s"
            % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout, p.stderr


def load_trace(path):
    require(os.path.exists(path), "no trace file at %s" % path)
    with open(path) as f:
        trace = json.load(f)  # raises on malformed JSON
    events = trace["traceEvents"]
    lanes = {e["tid"]: e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    order = {e["tid"]: e["args"]["sort_index"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_sort_index"}
    require(sorted(order) == sorted(lanes), "lanes without a sort index: %s" % lanes)
    bars = [e for e in events if e["ph"] == "X"]
    for e in bars:
        require(e["tid"] in lanes, "event %s on an unnamed lane %s" % (e["name"], e["tid"]))
        require(isinstance(e["ts"], (int, float)) and e["ts"] >= 0, "bad ts in %s" % e)
        require(isinstance(e["dur"], (int, float)) and e["dur"] >= 0, "bad dur in %s" % e)
        args = e["args"]
        require(isinstance(args.get("event"), int) and args["event"] > 0,
                "no Parasol event id in %s" % e)
        require(args.get("command", "").startswith("CL_COMMAND_"), "no command type in %s" % e)
        require(args.get("queue") in ("device", "context"), "no queue kind in %s" % e)
    ids = [e["args"]["event"] for e in bars]
    require(len(ids) == len(set(ids)), "an event id appears twice: %s" % ids)
    return lanes, bars, sorted(lanes, key=lambda t: order[t])


def check_no_overlap(lanes, bars):
    for tid, name in lanes.items():
        if name == "host transfers":
            continue
        mine = sorted((e for e in bars if e["tid"] == tid), key=lambda e: e["ts"])
        for a, b in zip(mine, mine[1:]):
            require(a["ts"] + a["dur"] <= b["ts"],
                    "on %s, %s (event %d, %.3f+%.3f us) overlaps %s (event %d at %.3f us)"
                    % (name, a["name"], a["args"]["event"], a["ts"], a["dur"], b["name"],
                       b["args"]["event"], b["ts"]))


def check_hello_mixed(suite_env, program, out_dir):
    trace = os.path.join(out_dir, "hello-mixed.json")
    if os.path.exists(trace):
        os.remove(trace)
    stdout, _ = run([suite_env, program], {"PARASOL_TRACE": trace})
    devices = re.findall(r"^  device \d+: (.*)$", stdout, re.M)
    steps = [(int(n), dev) for n, dev in re.findall(r"^step +(\d+) ran on (.*)$", stdout, re.M)]
    require(devices and steps, "hello-mixed printed no devices or steps:\n" + stdout)

    lanes, bars, lane_order = load_trace(trace)
    names = [lanes[t] for t in lane_order]
    require(names == devices + ["host transfers"],
            "lanes %s, expected one per device %s (in the platform's order) plus host transfers"
            % (names, devices))

    # The steps form one chain, so the kernels' order in time is the steps' order.
    # Two devices may share a name (PoCL's): step s ran on device s % ndev's
    # queue, so it must be on that device's lane, not only a lane of that name.
    kernels = sorted((e for e in bars if e["name"] == "scale_shift"), key=lambda e: e["ts"])
    require(len(kernels) == len(steps), "%d scale_shift events for %d steps"
            % (len(kernels), len(steps)))
    for (n, device), e in zip(sorted(steps), kernels):
        require(lanes[e["tid"]] == device, "step %d ran on %s but is on lane %s"
                % (n, device, lanes[e["tid"]]))
        require(device == devices[n % len(devices)] and
                e["tid"] == lane_order[n % len(devices)],
                "step %d is on lane %d, not on device %d's" % (n, e["tid"], n % len(devices)))
        require(e["args"]["command"] == "CL_COMMAND_NDRANGE_KERNEL" and
                e["args"]["queue"] == "device" and "status" not in e["args"], "step %d: %s"
                % (n, e))
    ids = [e["args"]["event"] for e in kernels]
    require(ids == sorted(ids), "event ids do not follow creation order: %s" % ids)

    reads = [e for e in bars if e["name"] == "read buffer"]
    require(len(reads) == 1 and lanes[reads[0]["tid"]] == "host transfers" and
            reads[0]["args"].get("bytes") == 4096 * 4,
            "expected one 16 KiB read buffer on the host lane: %s" % reads)
    check_no_overlap(lanes, bars)
    print("trace OK: %d lanes, %d commands, %d steps on their devices"
          % (len(lanes), len(bars), len(steps)))


def check_gantt(script, out_dir):
    trace = os.path.join(out_dir, "hello-mixed.json")
    png = os.path.join(out_dir, "hello-mixed.png")
    if os.path.exists(png):
        os.remove(png)
    run(["/usr/bin/python3", script, trace, png], {})
    require(os.path.exists(png), "no PNG written")
    with open(png, "rb") as f:
        data = f.read()
    require(data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG (magic bytes %r)" % data[:8])
    # IHDR: width and height, big-endian, at bytes 16..24.
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    require(400 <= width <= 4000 and 100 <= height <= 4000,
            "unexpected image size %dx%d" % (width, height))
    require(5_000 < len(data) < 2_000_000, "unexpected PNG file size %d" % len(data))
    print("gantt OK: %s, %dx%d, %d bytes" % (png, width, height, len(data)))


def check_log(suite_env, program, out_dir):
    trace = os.path.join(out_dir, "context-queue.json")
    if os.path.exists(trace):
        os.remove(trace)
    stdout, log = run([suite_env, program], {"PARASOL_LOG": "info", "PARASOL_TRACE": trace})
    m = re.search(r"^add_one ran on (.*)$", stdout, re.M)
    require(m and "OK" in stdout, "the program did not run:\n" + stdout)
    ran_on = m.group(1)

    found = re.findall(r"^\[parasol\] info: device \d+: (.*) \(StarPU worker \d+\)$", log, re.M)
    require(len(found) >= 1, "the log names no device:\n" + log)
    require(ran_on in found, "the device that ran the kernel (%s) is not among the devices "
            "the log names: %s" % (ran_on, found))
    ctx = re.search(r"^\[parasol\] info: context \S+ over (\d+) devices \((.*)\): its context "
                    r"queues place commands with policy '(\w+)'", log, re.M)
    require(ctx, "the log does not say which policy the context uses:\n" + log)
    require(int(ctx.group(1)) == len(found) and all(d in ctx.group(2) for d in found),
            "the context's devices in the log (%s) are not the devices found %s"
            % (ctx.group(2), found))
    policy = ctx.group(3)
    require(re.search(r"its first context queue schedules with policy '%s' \(StarPU \w+, "
                      r"scheduling context \d+\) over %d devices" % (policy, len(found)), log),
            "the log does not say the context queue's policy and devices:\n" + log)

    lanes, bars, _ = load_trace(trace)
    kernels = [e for e in bars if e["name"] == "add_one"]
    require(len(kernels) == 1 and kernels[0]["args"]["queue"] == "context" and
            lanes[kernels[0]["tid"]] == ran_on,
            "expected add_one on a context queue, on the lane of %s: %s" % (ran_on, kernels))
    print("log OK: %d devices, policy '%s', add_one on %s" % (len(found), policy, ran_on))


def check_failure(suite_env, program, out_dir):
    trace = os.path.join(out_dir, "failure.json")
    if os.path.exists(trace):
        os.remove(trace)
    stdout, log = run([suite_env, program, "--fail"], {"PARASOL_LOG": "warn",
                                                         "PARASOL_TRACE": trace})
    # Logs name a device "name [vendor] (device N)"; its trace lane "name [vendor]".
    m = re.search(r"^\[parasol\] error: kernel add_local on (Oclgrind[^\n]*\[Oclgrind\]) "
                  r"\(device \d+\): the "
                  r"vendor refused the launch: (CL_\w+) \((-\d+)\)$", log, re.M)
    require(m, "the log does not say which vendor refused the launch and why:\n" + log)
    device, name, code = m.groups()
    lanes, bars, _ = load_trace(trace)
    kernels = [e for e in bars if e["name"] == "add_local"]
    require(len(kernels) == 1, "expected one add_local event: %s" % bars)
    e = kernels[0]
    require(lanes[e["tid"]] == device, "add_local is on lane %s, not %s" % (lanes[e["tid"]], device))
    require(e["args"].get("status") == "%s (%s)" % (name, code) and e.get("cname") == "terrible",
            "the failed command's event does not carry its status %s: %s" % (name, e))
    require(all("status" not in x["args"] for x in bars if x is not e),
            "only add_local failed: %s" % bars)
    print("failure OK: add_local on %s failed with %s (%s)" % (device, name, code))


def main(argv):
    try:
        if argv[1] == "hello-mixed":
            check_hello_mixed(*argv[2:5])
        elif argv[1] == "gantt":
            check_gantt(*argv[2:4])
        elif argv[1] == "log":
            check_log(*argv[2:5])
        elif argv[1] == "failure":
            check_failure(*argv[2:5])
        else:
            raise Failure("unknown check " + argv[1])
    except Failure as f:
        print("FAILED: %s" % f)
        return 1
    except Skipped as s:
        print("skipped: %s" % s)
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
