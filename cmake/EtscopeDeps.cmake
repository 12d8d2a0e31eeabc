# find_package with a one-line answer a newcomer can act on: which Debian package to install (the same name on Debian 12 and 13).
# (CMake's own message names a config file, not the package that ships it.)
macro(etscope_find_package name debian_package)
  find_package(${name} ${ARGN} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR "${name} not found. On Debian 12 or 13 run tools/install-deps.sh, or: apt-get install ${debian_package}")
  endif()
endmacro()
