// The answer of a dispatch slot whose feature Parasol does not offer: the
// spec's CL_INVALID_OPERATION (through errcode_ret for functions returning
// an object), and one log line naming the function.
#pragma once

#include <CL/cl_icd.h>

#include <algorithm>
#include <tuple>
#include <type_traits>

#include "util/log.h"

namespace parasol::icd {

template <std::size_t N>
struct FunctionName {
  constexpr FunctionName(const char (&s)[N]) { std::copy_n(s, N, text); }
  char text[N];
};

template <typename Fn, FunctionName Name>
struct Unsupported;

template <typename R, typename... Args, FunctionName Name>
struct Unsupported<R(CL_API_CALL*)(Args...), Name> {
  static R CL_API_CALL call(Args... args) {
    log::info(Name.text, ": not supported by Parasol (CL_INVALID_OPERATION)");
    if constexpr (sizeof...(Args) > 0) {
      using Last = std::tuple_element_t<sizeof...(Args) - 1, std::tuple<Args...>>;
      if constexpr (std::is_same_v<Last, cl_int*> && !std::is_same_v<R, cl_int>) {
        if (Last errcode = std::get<sizeof...(Args) - 1>(std::tie(args...)))
          *errcode = CL_INVALID_OPERATION;
      }
    }
    ((void)args, ...);
    if constexpr (std::is_same_v<R, cl_int>) return CL_INVALID_OPERATION;
    else if constexpr (!std::is_void_v<R>) return R{};
  }
};

// Windows-only slots are typed void* in the Linux headers: they get a
// function answering CL_INVALID_OPERATION (an x86-64 call with any arguments
// may land there safely), so that no slot is null.
inline cl_int CL_API_CALL windows_only_entry() {
  log::info("a Windows-only OpenCL entry point was called (CL_INVALID_OPERATION)");
  return CL_INVALID_OPERATION;
}

template <typename Fn, FunctionName Name>
Fn unsupported_slot() {
  if constexpr (std::is_same_v<Fn, void*>)
    return reinterpret_cast<void*>(&windows_only_entry);
  else
    return &Unsupported<Fn, Name>::call;
}

}  // namespace parasol::icd
