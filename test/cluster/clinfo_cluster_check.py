"""clinfo as rank 0 of an MPI job lists every rank's devices in Parasol's platform.

Usage: clinfo_cluster_check.py RANKS MPIRUN_COMMAND...
The command runs `clinfo` (every query of every device) as rank 0 and
parasol-node on the RANKS - 1 others (test/cluster/CMakeLists.txt). Checks:
  - mpirun, and so clinfo, exits with status 0 within the time limit,
  - Parasol's section of clinfo's output names, for every other rank R, the
    devices rank 0 has, as "NAME (rank R on HOST)" (every rank runs the same
    vendors),
  - Parasol counts as many devices as it names, and every remote device's
    section has its name, type, vendor and version,
  - no query of a device makes Parasol log an error on stderr.
clinfo prints a query a device does not answer as the error's name; those
are allowed (the spec's answer), a crash or a hang is not.
"""
import re
import subprocess
import sys


def fail(msg):
    sys.exit(f"FAIL: {msg}")


ranks = int(sys.argv[1])
command = sys.argv[2:]
try:
    p = subprocess.run(command, capture_output=True, text=True, timeout=100,
                       stdin=subprocess.DEVNULL)
except subprocess.TimeoutExpired as e:
    fail(f"clinfo under mpirun did not end within {e.timeout} s")
if p.returncode != 0:
    fail(f"mpirun (clinfo as rank 0) exited with {p.returncode}\n{p.stdout}\n{p.stderr}")
if "[parasol] error" in p.stderr:
    fail(f"Parasol logged an error during clinfo:\n{p.stderr}")

# The Parasol section: from "Platform Name  Parasol" that is followed by
# "Number of devices", up to the next "Platform Name".
sections, section = [], None
for line in p.stdout.splitlines():
    if re.match(r"\s*Platform Name\s+", line) or line.startswith("NULL platform behavior"):
        section = [line]
        sections.append(section)
    elif section is not None:
        section.append(line)
parasol = [s for s in sections if re.match(r"\s*Platform Name\s+Parasol$", s[0])
           and any(l.startswith("Number of devices") for l in s)]
if len(parasol) != 1:
    fail(f"expected one Parasol device section in clinfo's output, got {len(parasol)}:\n"
         f"{p.stdout}")
parasol = parasol[0]
names = [m.group(1) for m in (re.match(r"\s*Device Name\s+(.*\S)\s*$", l) for l in parasol) if m]
count = next(int(m.group(1)) for m in (re.match(r"Number of devices\s+(\d+)", l)
                                       for l in parasol) if m)
print(f"clinfo: Parasol lists {count} devices: {names}")
if count != len(names):
    fail(f"Parasol counts {count} devices but clinfo shows {len(names)} names")
local = [n for n in names if " (rank " not in n]
if not local:
    fail(f"rank 0's own devices are missing: {names}")
# Every rank runs the same vendors: each lists as many devices as rank 0,
# by the same names.
for r in range(1, ranks):
    mark = f" (rank {r} on "
    of_rank = sorted(n[:n.index(mark)] for n in names if mark in n)
    if of_rank != sorted(local):
        fail(f"rank {r}'s devices {of_rank} are not rank 0's {sorted(local)}: {names}")
remote = len(names) - len(local)
# Each device section of clinfo starts at its "Device Name" line; a
# remote device's section carries the usual answers too.
starts = [i for i, l in enumerate(parasol) if re.match(r"\s*Device Name\s+", l)]
for k, i in enumerate(starts):
    block = parasol[i:starts[k + 1] if k + 1 < len(starts) else len(parasol)]
    for key in ("Device Vendor", "Device Version", "Device Type", "Max compute units",
                "Global memory size"):
        if not any(l.strip().startswith(key) for l in block):
            fail(f"{names[k]}: clinfo shows no '{key}'")
print(f"clinfo under mpirun with {ranks} ranks: {len(local)} local and {remote} remote devices, "
      "every rank's devices listed, exit status 0")
