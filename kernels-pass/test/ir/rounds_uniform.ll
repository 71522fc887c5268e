; RUN: parasol-kernels-opt %s --O3=x86-64-v4 | FileCheck %s
; nbody's shape: each work-item loops over the same n bodies (the counter is
; uniform). The loop runs in rounds: the work-item loop inside each round is
; innermost, and the vectoriser takes it (16 floats with AVX-512).
declare i64 @__parasol_local_id(i32)
declare i64 @__parasol_group_id(i32)
declare i64 @__parasol_local_size(i32)
declare float @llvm.sqrt.f32(float)

define spir_kernel void @forces(ptr addrspace(1) %x, ptr addrspace(1) %m, ptr addrspace(1) %acc, i32 %n) {
entry:
  %lid = call i64 @__parasol_local_id(i32 0)
  %g = call i64 @__parasol_group_id(i32 0)
  %s = call i64 @__parasol_local_size(i32 0)
  %gs = mul i64 %g, %s
  %i = add i64 %gs, %lid
  %px = getelementptr float, ptr addrspace(1) %x, i64 %i
  %p = load float, ptr addrspace(1) %px
  br label %loop
loop:
  %j = phi i32 [ 0, %entry ], [ %j1, %body ]
  %a = phi float [ 0.0, %entry ], [ %a1, %body ]
  %more = icmp ult i32 %j, %n
  br i1 %more, label %body, label %done
body:
  %jx = zext i32 %j to i64
  %qp = getelementptr float, ptr addrspace(1) %x, i64 %jx
  %q = load float, ptr addrspace(1) %qp
  %mp = getelementptr float, ptr addrspace(1) %m, i64 %jx
  %mass = load float, ptr addrspace(1) %mp
  %d = fsub float %q, %p
  %d2 = fmul float %d, %d
  %r2 = fadd float %d2, 0x3F847AE140000000
  %r = call float @llvm.sqrt.f32(float %r2)
  %inv = fdiv float 1.0, %r
  %f = fmul float %mass, %inv
  %fd = fmul float %f, %d
  %a1 = fadd float %a, %fd
  %j1 = add i32 %j, 1
  br label %loop
done:
  %ap = getelementptr float, ptr addrspace(1) %acc, i64 %i
  store float %a, ptr addrspace(1) %ap
  ret void
}

; CHECK-LABEL: define void @__parasol_wg_forces(
; The round: the counter is one scalar for the whole work-group; the bodies
; are loaded once per round.
; CHECK: r1.round:
; CHECK-NEXT: %__parasol_round_value.0.forces = phi i32
; CHECK-NEXT: %more.uniform = icmp ult i32 %__parasol_round_value.0.forces, %n
; Inside it, the work-item loop runs several work-items at a time, masked by
; whether each is still in the loop (its state byte is 1).
; CHECK: r1.z.us.preheader:
; CHECK: load float, ptr addrspace(1)
; CHECK: load float, ptr addrspace(1)
; CHECK: vector.body{{[0-9]+}}:
; CHECK: %[[ACTIVE:[0-9]+]] = icmp eq <[[W:[0-9]+]] x i8> %{{.*}}, <i8 1,
; CHECK: call <[[W]] x float> @llvm.sqrt.v[[W]]f32(
; CHECK: fdiv <[[W]] x float>
; CHECK: call void @llvm.masked.store.v[[W]]f32.p0(<[[W]] x float> %{{[0-9]+}}, ptr %{{.*}}, i32 4, <[[W]] x i1> %[[ACTIVE]])
; CHECK: }
