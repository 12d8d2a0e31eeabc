# Warnings for our own targets only; generated and third-party headers are included as SYSTEM.
function(etscope_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
endfunction()
