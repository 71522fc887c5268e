; RUN: parasol-kernels-opt %s | FileCheck %s
; Lanes (WorkItemLanes.h): each work-item's Collatz sequence, a loop that
; work-items leave at different iterations. The x loop steps over strips of
; work-items (4 lanes without a target's vector registers), the last strip
; masked to the local size; the loop runs while any lane is in it, its
; values in vectors; the count a lane leaves with is frozen at its exit; the
; store is a scatter under the mask of the lanes that reach it.
declare i64 @__parasol_local_id(i32)
declare i64 @__parasol_local_size(i32)
declare i64 @__parasol_group_id(i32)

define spir_kernel void @collatz(ptr addrspace(1) %steps, i64 %first) {
entry:
  %lid = call i64 @__parasol_local_id(i32 0)
  %ls = call i64 @__parasol_local_size(i32 0)
  %g = call i64 @__parasol_group_id(i32 0)
  %gl = mul i64 %g, %ls
  %i = add i64 %gl, %lid
  %v0 = add i64 %i, %first
  %start = icmp eq i64 %v0, 1
  br i1 %start, label %done, label %loop
loop:
  %v = phi i64 [ %v0, %entry ], [ %v1, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s1, %loop ]
  %odd = and i64 %v, 1
  %isodd = icmp ne i64 %odd, 0
  %m3 = mul i64 %v, 3
  %up = add i64 %m3, 1
  %down = lshr i64 %v, 1
  %v1 = select i1 %isodd, i64 %up, i64 %down
  %s1 = add i32 %s, 1
  %more = icmp ne i64 %v1, 1
  br i1 %more, label %loop, label %done
done:
  %sf = phi i32 [ 0, %entry ], [ %s1, %loop ]
  %p = getelementptr i32, ptr addrspace(1) %steps, i64 %i
  store i32 %sf, ptr addrspace(1) %p
  ret void
}

; CHECK-LABEL: define void @__parasol_wg_collatz(
; CHECK: lanes.x:
; CHECK: %lid.x.lanes = add <4 x i64> %{{.*}}, <i64 0, i64 1, i64 2, i64 3>
; CHECK: %in.strip = icmp ult <4 x i64> %lid.x.lanes, %{{.*}}
; CHECK: %start = icmp eq <4 x i64> %v0, <i64 1, i64 1, i64 1, i64 1>
; CHECK: lanes.x.latch:
; CHECK: %lid.x.next = add nuw i64 %lid.x, 4
; CHECK: lanes.loop:
; CHECK: %lanes.active = phi <4 x i1>
; CHECK: %v = phi <4 x i64>
; CHECK: %s = phi <4 x i32>
; CHECK: %s1.left = phi <4 x i32> [ poison, %lanes.x ]
; CHECK: %v1 = select <4 x i1> %isodd, <4 x i64> %up, <4 x i64> %down
; CHECK: %more = icmp ne <4 x i64> %v1
; CHECK: [[AGAIN:%.*]] = select <4 x i1> %lanes.active, <4 x i1> %more, <4 x i1> zeroinitializer
; CHECK: [[ANY:%.*]] = call i1 @llvm.vector.reduce.or.v4i1(<4 x i1> [[AGAIN]])
; CHECK: br i1 [[ANY]], label %lanes.loop, label %lanes.after
; CHECK: lanes.after:
; CHECK: %sf = select <4 x i1>
; CHECK: call void @llvm.masked.scatter.v4i32.v4p1(<4 x i32> %sf, <4 x ptr addrspace(1)> %p, i32 4,
; CHECK-NOT: __parasol_local_id
; CHECK: }
