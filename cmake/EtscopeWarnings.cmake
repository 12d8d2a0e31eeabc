# Warnings for our own targets only; generated and third-party headers are included as SYSTEM.
# ETSCOPE_WERROR turns them into errors (ON in every .ci/run build, with gcc and with clang);
# off by default so that a newer compiler's new warning never stops a user's build.
option(ETSCOPE_WERROR "Treat compiler warnings in etscope's own code as errors" OFF)
function(etscope_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(ETSCOPE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
