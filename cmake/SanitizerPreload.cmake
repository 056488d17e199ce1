# SPDX-License-Identifier: Apache-2.0 OR MIT
# cf_sanitizer_preload(<var>): sets <var> to the LD_PRELOAD value that loads
# the compiler's shared AddressSanitizer runtime, with UBSan's handlers, into
# an uninstrumented host process, so that the CF_SANITIZE build's instrumented
# code can run inside it: the Python extension in Debian's interpreter
# (python/), the Redis module in Debian's redis-server (redis/).  clang's
# ASan runtime carries the UBSan handlers; gcc's are two libraries.
function(cf_sanitizer_preload out)
  if(CMAKE_C_COMPILER_ID MATCHES "Clang")
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
      OUTPUT_VARIABLE preload OUTPUT_STRIP_TRAILING_WHITESPACE)
  else()
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
      OUTPUT_VARIABLE asan_rt OUTPUT_STRIP_TRAILING_WHITESPACE)
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libubsan.so
      OUTPUT_VARIABLE ubsan_rt OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(preload "${asan_rt}:${ubsan_rt}")
  endif()
  set(${out} "${preload}" PARENT_SCOPE)
endfunction()
