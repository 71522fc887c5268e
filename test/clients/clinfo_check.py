"""clinfo, a real OpenCL client, lists Parasol and every device without errors.

Runs `clinfo -l` and `clinfo` (every query of every platform and device) in
the caller's vendor configuration and checks that:
  - both exit with status 0 and print nothing on stderr from Parasol,
  - the platform "Parasol" is listed,
  - Parasol's devices are exactly the vendor platforms' devices seen directly
    (same count, same names),
  - no query of the Parasol platform or its devices reports an error.
"""
import re
import subprocess
import sys


def run(*args):
    p = subprocess.run(["clinfo", *args], capture_output=True, text=True, timeout=600,
                       stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        sys.exit(f"clinfo {' '.join(args)} exited with {p.returncode}\n{p.stdout}\n{p.stderr}")
    if "[parasol]" in p.stderr:
        sys.exit(f"Parasol logged on stderr during clinfo {' '.join(args)}:\n{p.stderr}")
    return p.stdout


def fail(msg):
    sys.exit(f"FAIL: {msg}")


# clinfo -l:  "Platform #0: NAME" then " +-- Device #0: NAME" / " `-- Device #1: NAME"
platforms = {}
current = None
for line in run("-l").splitlines():
    m = re.match(r"Platform #\d+: (.*)$", line)
    if m:
        current = m.group(1).strip()
        platforms[current] = []
        continue
    m = re.match(r"\s*[+`]-- Device #\d+: (.*)$", line)
    if m and current is not None:
        platforms[current].append(m.group(1).strip())
print("clinfo -l:", platforms)

if "Parasol" not in platforms:
    fail("no Parasol platform in clinfo -l")
parasol = platforms.pop("Parasol")
# Every vendor's devices, plus Parasol's own native CPU device when built.
vendor_devices = [d for devs in platforms.values() for d in devs]
if "Parasol native CPU" in parasol:
    vendor_devices.append("Parasol native CPU")
for name in ("Portable Computing Language", "Oclgrind"):
    if name not in platforms or not platforms[name]:
        fail(f"the vendor platform {name} has no device: this test needs PoCL and Oclgrind")
if len(parasol) != len(vendor_devices):
    fail(f"Parasol lists {len(parasol)} devices, the vendors {len(vendor_devices)}: "
         f"{parasol} vs {platforms}")
if sorted(parasol) != sorted(vendor_devices):
    fail(f"Parasol's devices {sorted(parasol)} are not the vendors' {sorted(vendor_devices)}")
print(f"Parasol re-exports {len(parasol)} devices: "
      + ", ".join(f"{len(v)} of {k}" for k, v in platforms.items()))

# Full clinfo: the Parasol section is the one after "Platform Name  Parasol"
# followed by "Number of devices", up to the next platform's section.
full = run().splitlines()
sections, section = [], None
for line in full:
    if re.match(r"\s*Platform Name\s+", line) or line.startswith("NULL platform behavior"):
        section = [line]
        sections.append(section)
    elif section is not None:
        section.append(line)
parasol_sections = [s for s in sections
                    if re.match(r"\s*Platform Name\s+Parasol$", s[0])
                    and any(l.startswith("Number of devices") for l in s)]
if len(parasol_sections) != 1:
    fail(f"expected one Parasol device section in clinfo's output, got {len(parasol_sections)}")
parasol_section = parasol_sections[0]
m = next(re.match(r"Number of devices\s+(\d+)", l) for l in parasol_section
         if l.startswith("Number of devices"))
if int(m.group(1)) != len(vendor_devices):
    fail(f"clinfo counts {m.group(1)} Parasol devices, expected {len(vendor_devices)}")
for name in set(vendor_devices):
    if not any(re.match(r"\s*Device Name\s+" + re.escape(name) + "$", l) for l in parasol_section):
        fail(f"device {name} missing from Parasol's clinfo section")
# clinfo prints a failed query as "<error: ...>", "Invalid ...", or the error's name.
error = re.compile(r"<error|CL_INVALID|CL_OUT_OF|CL_DEVICE_NOT|Invalid |<getWGsizes|error code", re.I)
errors = [l for l in parasol_section if error.search(l)]
if errors:
    fail("clinfo reports errors for Parasol:\n" + "\n".join(errors))
print(f"clinfo: {len(parasol_section)} lines about Parasol's {len(vendor_devices)} devices, no errors")
print("clinfo on Parasol: all checks passed")
