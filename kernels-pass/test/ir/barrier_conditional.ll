; RUN: parasol-kernels-opt %s | FileCheck %s
; A barrier under a (uniform) condition: the first region can end at the
; barrier or at the return; the choice picks the next region.
declare i64 @__parasol_local_id(i32)
declare void @__parasol_barrier()

define spir_kernel void @cond(ptr addrspace(1) %out, i32 %flag) {
entry:
  %lid = call i64 @__parasol_local_id(i32 0)
  %o = getelementptr i32, ptr addrspace(1) %out, i64 %lid
  store i32 1, ptr addrspace(1) %o
  %c = icmp ne i32 %flag, 0
  br i1 %c, label %then, label %done
then:
  call void @__parasol_barrier()
  store i32 2, ptr addrspace(1) %o
  br label %done
done:
  ret void
}

; CHECK-LABEL: define void @__parasol_wg_cond(
; CHECK: r0.done:
; CHECK-NEXT: %next.region = load i32, ptr %next
; CHECK-NEXT: switch i32 %next.region, label %r0.return [
; CHECK-NEXT: i32 1, label %r1.pre
; CHECK: entry.r0:
; CHECK: store i32 1, ptr addrspace(1) %o.r0
; CHECK: br i1 %c.r0, label %then.r0, label %done.r0
; Region 1 only runs the code after the barrier, then returns. The address
; (a function of the local id) is recomputed there rather than privatised.
; CHECK: r1.done:
; CHECK-NEXT: ret void
; CHECK: after.barrier.r1:
; CHECK-NEXT: %o.remat.r1 = getelementptr i32, ptr addrspace(1) %out, i64 %lid.x{{[0-9]+}}
; CHECK-NEXT: store i32 2, ptr addrspace(1) %o.remat.r1
