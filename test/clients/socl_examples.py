"""StarPU's own SOCL example programs (Debian's starpu-examples), unchanged,
on Parasol with PARASOL_SOCL=1, one vendor configuration at a time.

basic and testmap pick the platform whose vendor is SOCL's ("Inria") and
run a kernel whose result depends on the SOCL_DEVICE_TYPE_<type> macro SOCL
defines when it builds for a device: s1 + k*s2 with s1 = 2, s2 = 7 and k =
1 (GPU), 2 (CPU), 3 (ACCELERATOR) or 4 (UNKNOWN, any other type: Oclgrind
reports every type at once). Each configuration holds devices of one type,
so every printed value must be the one of that type. mansched runs
s1 + s2 = 9 on every GPU and CPU device of every platform; clinfo prints
every platform and device and stops at the first error.

Usage: socl_examples.py EXAMPLES_DIR PARASOL_LIBRARY FAULT_VENDOR_LIBRARY
"""
import os
import subprocess
import sys
import tempfile

EXAMPLES, PARASOL, FAULT = sys.argv[1:4]
OCLGRIND = "/usr/lib/oclgrind/liboclgrind-rt-icd.so"

# name: (vendor libraries beside Parasol, Parasol's native device on,
#        the value of basic/testmap, whether mansched can run)
CONFIGURATIONS = {
    "PoCL's CPU devices": (["libpocl.so.2"], False, 16.0, True),
    "Parasol's native CPU device": ([], True, 16.0, True),
    "Oclgrind (every device type)": ([OCLGRIND], False, 30.0, True),
    # mansched stops at a platform without GPU or CPU devices: the fault
    # vendor's own platform has only an accelerator.
    "an accelerator (the fault vendor)": ([FAULT], False, 23.0, False),
}


def environment(folder, vendors, native):
    for i, library in enumerate(vendors + [PARASOL]):
        with open(os.path.join(folder, f"{i}.icd"), "w") as f:
            f.write(library + "\n")
    env = dict(os.environ)
    env.update(OCL_ICD_VENDORS=folder, PARASOL_SOCL="1",
               PARASOL_NATIVE_DEVICE="1" if native else "0",
               POCL_DEVICES="pthread", POCL_MAX_PTHREAD_COUNT="2")
    return env


def run(program, env):
    p = subprocess.run([os.path.join(EXAMPLES, program)], env=env, capture_output=True,
                       text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def data_values(stdout):
    lines = stdout.splitlines()
    values = []
    for i, line in enumerate(lines):
        if line.startswith("Data...") and i + 1 < len(lines):
            values.append([float(v) for v in lines[i + 1].split()])
    return values


failures = []
for name, (vendors, native, expected, mansched) in CONFIGURATIONS.items():
    with tempfile.TemporaryDirectory() as folder:
        env = environment(folder, vendors, native)
        for program in ["basic", "testmap"]:
            rc, out, err = run(program, env)
            runs = data_values(out)
            ok = rc == 0 and len(runs) == 1 and len(runs[0]) == 1024 and \
                all(v == expected for v in runs[0])
            got = sorted(set(runs[0])) if runs else "no data"
            print(f"{name}: {program}: exit {rc}, values {got} (expected {expected})")
            if not ok:
                failures.append(f"{name}: {program}\n{out[-2000:]}\n{err[-2000:]}")
        if mansched:
            rc, out, err = run("mansched", env)
            runs = data_values(out)
            ok = rc == 0 and len(runs) >= 1 and all(
                len(r) == 1024 and all(v == 9.0 for v in r) for r in runs)
            print(f"{name}: mansched: exit {rc}, {len(runs)} devices run")
            if not ok:
                failures.append(f"{name}: mansched\n{out[-2000:]}\n{err[-2000:]}")
        rc, out, err = run("clinfo", env)
        ok = rc == 0 and "SOCL Platform" in out and "Inria" in out
        print(f"{name}: clinfo: exit {rc}, SOCL Platform listed: {'SOCL Platform' in out}")
        if not ok:
            failures.append(f"{name}: clinfo\n{out[-2000:]}\n{err[-2000:]}")

for f in failures:
    print("FAILED:", f)
sys.exit(1 if failures else 0)
