// Every handle Parasol gives out: the ICD dispatch pointer first, then two
// reference counts.
//
// The API count is what clRetain*/clRelease* move and what
// CL_*_REFERENCE_COUNT reports; when it reaches zero the handle leaves the
// registry, so later API calls on it answer CL_INVALID_*. The internal count
// keeps the object alive while Parasol itself still needs it (a command in
// flight holds its kernel, buffers and queue), so releasing objects with
// commands in flight is safe.
#pragma once

#include <CL/cl_icd.h>

#include <atomic>
#include <cstdint>
#include <utility>

// The handle structs cl.h declares but leaves incomplete. The loader reads the
// dispatch pointer at offset 0 of every handle.
struct _cl_platform_id { const cl_icd_dispatch* dispatch; };
struct _cl_device_id { const cl_icd_dispatch* dispatch; };
struct _cl_context { const cl_icd_dispatch* dispatch; };
struct _cl_command_queue { const cl_icd_dispatch* dispatch; };
struct _cl_mem { const cl_icd_dispatch* dispatch; };
struct _cl_program { const cl_icd_dispatch* dispatch; };
struct _cl_kernel { const cl_icd_dispatch* dispatch; };
struct _cl_event { const cl_icd_dispatch* dispatch; };
struct _cl_sampler { const cl_icd_dispatch* dispatch; };

namespace parasol::core {

enum class ObjectKind : std::uint8_t {
  Platform, Device, Context, CommandQueue, Mem, Program, Kernel, Event, Sampler,
};

// The dispatch table every handle points to: the API layer's
// (src/icd/dispatch_table.cpp), set during static initialisation, before
// any object exists.
extern constinit const cl_icd_dispatch* g_dispatch_table;
void set_dispatch_table(const cl_icd_dispatch* table);

// The live-handle registry: how the API layer tells a Parasol handle from a
// null, foreign or released one without reading memory it does not own.
namespace registry {
void add(const void* handle, ObjectKind kind);
void remove(const void* handle, ObjectKind kind);
bool contains(const void* handle, ObjectKind kind);
}  // namespace registry

// Base of every handle type. Handle is the cl.h struct (dispatch first); no
// virtual functions anywhere in the hierarchy, so the dispatch pointer stays
// at offset 0.
template <typename Derived, typename Handle, ObjectKind Kind>
class Object : public Handle {
 public:
  static constexpr ObjectKind kind = Kind;

  Object() : listed_(true) {
    this->dispatch = g_dispatch_table;
    registry::add(static_cast<Handle*>(this), Kind);
  }
  // Born outside the registry: for the events of commands, which most
  // callers never ask for (no handle out, no lookup); list() before the
  // handle leaves Parasol.
  struct Unlisted {};
  explicit Object(Unlisted) : listed_(false) { this->dispatch = g_dispatch_table; }
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  Handle* handle() { return this; }
  // Enters the registry, once, before the handle is handed out; by the
  // holder of the API reference (so never racing release_api()).
  void list() {
    if (!listed_) {
      listed_ = true;
      registry::add(static_cast<Handle*>(this), Kind);
    }
  }
  static Derived* from(Handle* h) { return static_cast<Derived*>(h); }

  // API references (clRetain*/clRelease*).
  void retain_api() {
    api_refs_.fetch_add(1, std::memory_order_relaxed);
    retain();
  }
  void release_api() {
    if (api_refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      if (listed_) registry::remove(static_cast<Handle*>(this), Kind);
      static_cast<Derived*>(this)->on_last_api_release();
    }
    release();
  }
  cl_uint api_ref_count() const { return api_refs_.load(std::memory_order_relaxed); }

  // Internal references (Ref<T>).
  void retain() { all_refs_.fetch_add(1, std::memory_order_relaxed); }
  void release() {
    if (all_refs_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      Derived::destroy(static_cast<Derived*>(this));
  }

  // Hook for objects that act when the user lets go (flush a queue...).
  void on_last_api_release() {}
  static void destroy(Derived* self) { delete self; }

 protected:
  ~Object() = default;

 private:
  // A new object starts with one API reference (the handle returned to the
  // user), which also counts as one internal reference.
  std::atomic<cl_uint> api_refs_{1};
  std::atomic<std::uint64_t> all_refs_{1};
  bool listed_;  // in the registry; only the API reference's holder reads or writes it
};

// Creates a handle object; the caller owns its first (API) reference.
template <typename T, typename... Args>
T* create(Args&&... args) {
  return new T(std::forward<Args>(args)...);
}

// An owning internal reference, like std::shared_ptr over the intrusive count.
template <typename T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  explicit Ref(T* p) : p_(p) { if (p_) p_->retain(); }
  Ref(const Ref& o) : Ref(o.p_) {}
  Ref(Ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Ref& operator=(Ref o) noexcept { std::swap(p_, o.p_); return *this; }
  ~Ref() { if (p_) p_->release(); }

  // Takes over the reference a new object is born with (use on creation).
  static Ref adopt(T* p) { Ref r; r.p_ = p; return r; }
  // Gives the reference away, to become the user's API reference.
  T* detach() { return std::exchange(p_, nullptr); }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool operator==(const Ref& o) const { return p_ == o.p_; }

 private:
  T* p_ = nullptr;
};

// Turns the reference an object was born with (its API reference) into an
// internal one: the handle leaves the registry, the object stays alive as
// long as r holds it. For objects Parasol creates for itself.
template <typename T>
void drop_api_reference(Ref<T>& r) {
  T* p = r.get();
  p->retain();
  r.detach()->release_api();
  r = Ref<T>::adopt(p);
}

}  // namespace parasol::core
