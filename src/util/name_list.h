// OpenCL's ';'-separated name lists (CL_PROGRAM_KERNEL_NAMES,
// CL_DEVICE_BUILT_IN_KERNELS, clCreateProgramWithBuiltInKernels' names).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace parasol {

// The names of `list`, in order, each without surrounding spaces (and the
// terminating NUL of a query's answer); empty entries dropped.
inline std::vector<std::string> split_names(std::string_view list) {
  std::vector<std::string> out;
  constexpr std::string_view kBlank(" \0", 2);
  while (!list.empty()) {
    const std::size_t end = std::min(list.find(';'), list.size());
    std::string_view name = list.substr(0, end);
    const std::size_t first = name.find_first_not_of(kBlank);
    if (first != std::string_view::npos)
      out.emplace_back(name.substr(first, name.find_last_not_of(kBlank) - first + 1));
    list.remove_prefix(std::min(end + 1, list.size()));
  }
  return out;
}

}  // namespace parasol
