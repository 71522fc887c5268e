#!/usr/bin/python3
"""Renders a Parasol trace (PARASOL_TRACE=trace.json) as a Gantt chart.

Usage: /usr/bin/python3 scripts/trace-gantt.py trace.json out.png

One row per lane (each Parasol device, then "host transfers"), one bar per
command, coloured by its name (the kernel's name, "read buffer"...); failed
commands are hatched. A command too short to see at the chart's scale is
drawn 1/400 of the time axis wide. Device rows are labelled in the
platform's order ("0: name", then "[vendor]"), since two devices of one
vendor often share a name. Needs matplotlib (Debian: python3-matplotlib).
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402


def load(path):
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    lanes, order, bars = {}, {}, []
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            lanes[e["tid"]] = e["args"]["name"]
        elif e.get("ph") == "M" and e.get("name") == "thread_sort_index":
            order[e["tid"]] = e["args"]["sort_index"]
        elif e.get("ph") == "X":
            bars.append(e)
    for e in bars:  # a lane without metadata still gets a row
        lanes.setdefault(e["tid"], "lane %s" % e["tid"])
    tids = sorted(lanes, key=lambda t: (order.get(t, t), t))
    return [(t, lanes[t]) for t in tids], bars


def row_label(index, lane):
    if lane == "host transfers" or " [" not in lane:
        return lane
    name, vendor = lane.rsplit(" [", 1)
    return "%d: %s\n[%s" % (index, name, vendor)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    trace_path, png_path = argv[1], argv[2]
    lanes, bars = load(trace_path)

    names = []
    for e in bars:
        if e["name"] not in names:
            names.append(e["name"])
    palette = plt.get_cmap("tab10" if len(names) <= 10 else "tab20")
    colour = {n: palette(i % palette.N) for i, n in enumerate(names)}
    row = {tid: i for i, (tid, _) in enumerate(lanes)}

    span_ms = max([(e["ts"] + e.get("dur", 0)) / 1000.0 for e in bars] + [1e-3])
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.6 * max(len(lanes), 1)), dpi=100)
    for e in bars:
        start_ms = e["ts"] / 1000.0
        dur_ms = max(e.get("dur", 0) / 1000.0, span_ms / 400.0)
        failed = "status" in e.get("args", {})
        ax.broken_barh([(start_ms, dur_ms)], (row[e["tid"]] - 0.4, 0.8),
                       facecolors=colour[e["name"]], edgecolor="none",
                       hatch="xx" if failed else None)
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([row_label(i, name) for i, (_, name) in enumerate(lanes)], fontsize=8)
    ax.set_ylim(-0.6, len(lanes) - 0.4)
    ax.invert_yaxis()  # first device on top
    ax.set_xlabel("time (ms)")
    ax.set_xlim(left=0)
    ax.grid(axis="x", linestyle=":", linewidth=0.5)
    ax.set_title("Parasol trace: %s (%d commands)" % (os.path.basename(trace_path), len(bars)))
    handles = [Patch(facecolor=colour[n], edgecolor="black", label=n) for n in names]
    if any("status" in e.get("args", {}) for e in bars):
        handles.append(Patch(facecolor="white", edgecolor="black", hatch="xx", label="failed"))
    if handles:
        ax.legend(handles=handles,
                  loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(png_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
