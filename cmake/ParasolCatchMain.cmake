# parasol_catch_main: the one Catch2 main() of every test binary in the tree
# (the suite's and kernels-pass's). Catch2 v2's main is the slowest file of
# the suite to compile: 40 s at -O2 -g, over 4 minutes under ASan+UBSan, and
# it was compiled three times per build. It only parses options and calls
# the test cases, so it is compiled once, unoptimised and uninstrumented
# (the test cases it calls keep the build's sanitizers).
include_guard(GLOBAL)
find_path(PARASOL_CATCH2_INCLUDE catch2/catch.hpp REQUIRED)
set(_parasol_catch_main ${CMAKE_CURRENT_LIST_DIR}/../test/support/catch_main.cpp)
add_library(parasol_catch_main STATIC ${_parasol_catch_main})
target_include_directories(parasol_catch_main PUBLIC ${PARASOL_CATCH2_INCLUDE})
set_source_files_properties(${_parasol_catch_main} PROPERTIES
                            COMPILE_OPTIONS "-O0;-g0;-fno-sanitize=all")
