#!/usr/bin/env bash
# The test binaries that mix NVIDIA with PoCL (carried in .gpu/bin), each
# run once on the GPU machine; a failure prints its whole output. The soak
# (random commands over NVIDIA, PoCL and the native device) and, when
# .gpu/lib/libParasolFaultVendor.so is carried, the fault soak (the Fault
# Device beside them failing some kernels) come last. Run there as
#   bash bench/gpu/mixed-tests.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
R="bash $here/run-on-gpu.sh"; B=$here/../../.gpu/bin
export POCL_DEVICES="pthread pthread"
for t in test_direct_path test_context_queue test_queue_ordering test_event_callback_profiling \
         test_mixed_vendor_chain test_cold_models test_worker_parking test_release_in_flight \
         test_buffer_transfer test_soak test_fault_soak; do
  if [ $t = test_fault_soak ]; then
    [ -f "$B/../lib/libParasolFaultVendor.so" ] || continue
    mkdir -p /tmp/vendors && echo "$B/../lib/libParasolFaultVendor.so" > /tmp/vendors/fault.icd
  fi
  out=$(timeout 100 $R "$B/$t" 2>&1); rc=$?
  rm -f /tmp/vendors/fault.icd
  if [ $rc -eq 0 ]; then echo "$t: $(echo "$out" | tail -2 | tr -d '\n')"; else echo "## $t FAILED ($rc)"; echo "$out" | tail -60; fi
done
