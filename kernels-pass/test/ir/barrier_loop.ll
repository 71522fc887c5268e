; RUN: parasol-kernels-opt %s | FileCheck %s
; A barrier inside a loop: the loop is re-entered from the region after the
; barrier, and the induction variable lives in a per-work-item slot.
declare i64 @__parasol_local_id(i32)
declare void @__parasol_barrier()

define spir_kernel void @loop(ptr addrspace(1) %out, i32 %n) {
entry:
  br label %header
header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %after ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %after ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %exit
body:
  call void @__parasol_barrier()
  br label %after
after:
  %acc.next = add i32 %acc, %i
  %i.next = add i32 %i, 1
  br label %header
exit:
  %lid = call i64 @__parasol_local_id(i32 0)
  %o = getelementptr i32, ptr addrspace(1) %out, i64 %lid
  store i32 %acc, ptr addrspace(1) %o
  ret void
}

; CHECK-LABEL: define void @__parasol_wg_loop(
; The loop-carried values live across the barrier: one slot per work-item.
; CHECK-DAG: %acc.slot.priv = alloca i32, i64 %num_items
; CHECK-DAG: %i.slot.priv = alloca i32, i64 %num_items
; CHECK: %next = alloca i32
; Region 0 ends at the barrier (1) or the return (-1).
; CHECK: r0.done:
; CHECK-NEXT: %next.region = load i32, ptr %next
; CHECK-NEXT: switch i32 %next.region, label %r0.return [
; CHECK-NEXT: i32 1, label %r1.pre
; CHECK: r0.exit:
; CHECK-NEXT: store i32 1, ptr %next
; CHECK: r0.exit{{[0-9]+}}:
; CHECK-NEXT: store i32 -1, ptr %next
; CHECK: header.r0:
; CHECK: store i32 %i.r0, ptr %i.slot.wi{{[0-9]*}}.r0
; Region 1 (after the barrier) loops back to itself until the loop ends.
; CHECK: r1.done:
; CHECK: switch i32 %next.region{{[0-9]*}}, label %r1.return [
; CHECK-NEXT: i32 1, label %r1.pre
; CHECK: after.r1:
; CHECK: %i.reload{{[0-9]*}}.r1 = load i32, ptr %i.slot.wi.r1
; CHECK: header.r1:
; CHECK-NEXT: %i.r1 = phi i32 [ %i.next.r1, %after.r1 ]
