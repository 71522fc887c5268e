; RUN: parasol-kernels-opt %s | FileCheck %s
; Inner loops that do not run in rounds: the work-item loop around them keeps
; the plain lowering (one region, the inner loop scalar inside it).
declare i64 @__parasol_local_id(i32)
declare void @__parasol_barrier(i32)

; Atomics: an interleaving of work-items would show in their results.
define spir_kernel void @atomic(ptr addrspace(1) %c, i32 %n) {
entry:
  br label %loop
loop:
  %j = phi i32 [ 0, %entry ], [ %j1, %loop ]
  %old = atomicrmw add ptr addrspace(1) %c, i32 %j seq_cst
  %j1 = add i32 %j, 1
  %more = icmp ult i32 %j1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}

; A barrier: the kernel has regions of its own.
define spir_kernel void @barrier(ptr addrspace(1) %a, i32 %n) {
entry:
  %lid = call i64 @__parasol_local_id(i32 0)
  call void @__parasol_barrier(i32 1)
  br label %loop
loop:
  %j = phi i32 [ 0, %entry ], [ %j1, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s1, %loop ]
  %s1 = add i32 %s, %j
  %j1 = add i32 %j, 1
  %more = icmp ult i32 %j1, %n
  br i1 %more, label %loop, label %done
done:
  %p = getelementptr i32, ptr addrspace(1) %a, i64 %lid
  store i32 %s1, ptr addrspace(1) %p
  ret void
}

; Work-items leave the loop at different iterations (the exit reads the
; work-item's own value): it runs in lanes (lanes_divergent.ll), not rounds.
define spir_kernel void @divergent(ptr addrspace(1) %a) {
entry:
  %lid = call i64 @__parasol_local_id(i32 0)
  %p = getelementptr i64, ptr addrspace(1) %a, i64 %lid
  %v0 = load i64, ptr addrspace(1) %p
  br label %loop
loop:
  %v = phi i64 [ %v0, %entry ], [ %v1, %loop ]
  %v1 = lshr i64 %v, 1
  %more = icmp ne i64 %v1, 0
  br i1 %more, label %loop, label %done
done:
  store i64 %v, ptr addrspace(1) %p
  ret void
}

; A loop of at most 16 iterations: LLVM unrolls it whole, and the work-item
; loop around it is innermost already.
define spir_kernel void @short(ptr addrspace(1) %a) {
entry:
  %lid = call i64 @__parasol_local_id(i32 0)
  br label %loop
loop:
  %j = phi i32 [ 0, %entry ], [ %j1, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s1, %loop ]
  %s1 = mul i32 %s, %j
  %j1 = add i32 %j, 1
  %more = icmp ult i32 %j1, 16
  br i1 %more, label %loop, label %done
done:
  %p = getelementptr i32, ptr addrspace(1) %a, i64 %lid
  store i32 %s1, ptr addrspace(1) %p
  ret void
}

; CHECK-LABEL: define void @__parasol_wg_atomic(
; CHECK-NOT: {{round|lanes}}
; CHECK: loop.r0:
; CHECK: atomicrmw add
; CHECK: br i1 %more.r0, label %loop.r0, label %done.r0
; CHECK-NOT: round
; CHECK-LABEL: define void @__parasol_wg_barrier(
; CHECK-NOT: {{round|lanes}}
; CHECK: loop.r1:
; CHECK: br i1 %more.r1, label %loop.r1, label %done.r1
; CHECK-NOT: round
; CHECK-LABEL: define void @__parasol_wg_divergent(
; CHECK-NOT: round
; CHECK: lanes.loop:
; CHECK-NOT: round
; CHECK-LABEL: define void @__parasol_wg_short(
; CHECK-NOT: {{round|lanes}}
; CHECK: loop.r0:
; CHECK: br i1 %more.r0, label %loop.r0, label %done.r0
; CHECK-NOT: round
; CHECK: }
