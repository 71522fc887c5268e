; RUN: parasol-kernels-opt %s | FileCheck %s
; A barrier-free kernel becomes one parallel work-item loop nest.
declare i64 @__parasol_local_id(i32)
declare i64 @__parasol_group_id(i32)
declare i64 @__parasol_local_size(i32)

define spir_kernel void @inc(ptr addrspace(1) %a) {
entry:
  %lid = call i64 @__parasol_local_id(i32 0)
  %g = call i64 @__parasol_group_id(i32 0)
  %s = call i64 @__parasol_local_size(i32 0)
  %m = mul i64 %g, %s
  %i = add i64 %m, %lid
  %p = getelementptr float, ptr addrspace(1) %a, i64 %i
  %v = load float, ptr addrspace(1) %p
  %v2 = fadd float %v, 1.0
  store float %v2, ptr addrspace(1) %p
  ret void
}

; CHECK-LABEL: define void @__parasol_wg_inc(ptr noalias %args, ptr noalias %range, ptr noalias %group_id, ptr noalias %local_mem)
; CHECK: %local_size = load i64
; CHECK: %a = load ptr addrspace(1), ptr %arg.slot
; CHECK-NOT: alloca
; CHECK: r0.x:
; CHECK-NEXT: %lid.x = phi i64 [ 0, %r0.y ], [ %lid.x.next, %r0.x.latch ]
; CHECK: r0.x.latch:
; CHECK: br i1 %{{[0-9]+}}, label %r0.x, label %r0.y.latch, !llvm.loop ![[LOOP:[0-9]+]]
; CHECK: r0.done:
; CHECK-NEXT: ret void
; CHECK-NOT: r1.pre
; CHECK: %m.r0 = mul i64 %group_id1, %local_size
; CHECK-NEXT: %i.r0 = add i64 %m.r0, %lid.x
; CHECK: load float, ptr addrspace(1) %p.r0, align 4, !llvm.access.group ![[AG:[0-9]+]]
; CHECK: store float %v2.r0, ptr addrspace(1) %p.r0, align 4, !llvm.access.group ![[AG]]
; CHECK-NOT: call i64 @__parasol
; CHECK: }
; The original kernel is gone.
; CHECK-NOT: define spir_kernel
; CHECK: "parasol-local-bytes"="0"
; CHECK: ![[LOOP]] = distinct !{![[LOOP]], ![[PA:[0-9]+]]}
; CHECK-NEXT: ![[PA]] = !{!"llvm.loop.parallel_accesses", ![[AG]]}
