// Marks a thread as running callbacks (the application's event callbacks,
// vendor completion callbacks, the deferred-release thread): code there must
// not block on StarPU, which may need that very thread to make progress.
#pragma once

namespace parasol {

class CallbackScope {
 public:
  CallbackScope() { ++depth(); }
  ~CallbackScope() { --depth(); }
  CallbackScope(const CallbackScope&) = delete;
  CallbackScope& operator=(const CallbackScope&) = delete;

  static bool active() { return depth() > 0; }

 private:
  static int& depth() {
    thread_local int d = 0;
    return d;
  }
};

}  // namespace parasol
