; RUN: parasol-kernels-opt %s | FileCheck %s
; A barrier in straight code splits the kernel into two loop nests.
declare i64 @__parasol_local_id(i32)
declare void @__parasol_barrier()

@straight.tile = internal addrspace(3) global [64 x i32] undef, align 4

define spir_kernel void @straight(ptr addrspace(1) %out) {
entry:
  %lid = call i64 @__parasol_local_id(i32 0)
  %t = trunc i64 %lid to i32
  %p = getelementptr [64 x i32], ptr addrspace(3) @straight.tile, i64 0, i64 %lid
  store i32 %t, ptr addrspace(3) %p
  call void @__parasol_barrier()
  %r = sub i64 63, %lid
  %q = getelementptr [64 x i32], ptr addrspace(3) @straight.tile, i64 0, i64 %r
  %v = load i32, ptr addrspace(3) %q
  %o = getelementptr i32, ptr addrspace(1) %out, i64 %lid
  store i32 %v, ptr addrspace(1) %o
  ret void
}

; CHECK-LABEL: define void @__parasol_wg_straight(
; The __local array is placed at offset 0 of local_mem.
; CHECK: %straight.tile = getelementptr inbounds i8, ptr %local_mem, i64 0
; CHECK: [[TILE:%[0-9]+]] = addrspacecast ptr %straight.tile to ptr addrspace(3)
; First region: the store before the barrier, then on to region 1.
; CHECK: r0.done:
; CHECK-NEXT: br label %r1.pre
; CHECK: entry.r0:
; CHECK: store i32 %t.r0, ptr addrspace(3) %p.r0
; CHECK-NOT: __parasol_barrier
; CHECK: r1.done:
; CHECK-NEXT: ret void
; The local id after the barrier is the second loop nest's counter.
; CHECK: after.barrier.r1:
; CHECK: %r.r1 = sub i64 63, %lid.x{{[0-9]+}}
; CHECK: load i32, ptr addrspace(3) %q.r1
; CHECK: "parasol-local-bytes"="256"
