; RUN: parasol-kernels-opt %s | FileCheck %s
; A value loaded before the barrier and used after it is kept per work-item;
; the local id used on both sides is recomputed, not stored.
declare i64 @__parasol_local_id(i32)
declare void @__parasol_barrier()

define spir_kernel void @priv(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %lid = call i64 @__parasol_local_id(i32 0)
  %p = getelementptr float, ptr addrspace(1) %in, i64 %lid
  %v = load float, ptr addrspace(1) %p
  call void @__parasol_barrier()
  %o = getelementptr float, ptr addrspace(1) %out, i64 %lid
  store float %v, ptr addrspace(1) %o
  ret void
}

; CHECK-LABEL: define void @__parasol_wg_priv(
; CHECK: %v.slot.priv = alloca float, i64 %num_items
; CHECK-NOT: alloca
; Before the barrier: store the loaded value in this work-item's slot.
; CHECK: entry.r0:
; CHECK: %v.r0 = load float, ptr addrspace(1) %p.r0
; CHECK-NEXT: %[[W0:.*]] = getelementptr float, ptr %v.slot.priv, i64 %local.linear
; CHECK-NEXT: store float %v.r0, ptr %[[W0]]
; After it: reload from the slot; the local id is the new loop's counter.
; CHECK: after.barrier.r1:
; CHECK-NEXT: %o.r1 = getelementptr float, ptr addrspace(1) %out, i64 %lid.x{{[0-9]+}}
; CHECK-NEXT: %[[W1:.*]] = getelementptr float, ptr %v.slot.priv, i64 %local.linear{{[0-9]+}}
; CHECK-NEXT: %v.reload.r1 = load float, ptr %[[W1]]
; CHECK-NEXT: store float %v.reload.r1, ptr addrspace(1) %o.r1
; CHECK: "parasol-private-bytes"="4"
