#!/bin/sh
# Installs everything etscope needs to build, test, package and fuzz on Debian 12 "bookworm" or
# Debian 13 "trixie" (run as root or with sudo). Only Debian packages, those of the release this
# runs on (read from /etc/os-release); skips apt entirely when all of them are present.
set -eu
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
# What differs between the releases: the LLVM of the clang runtime (sanitizers, libFuzzer).
# Qt 6, Python 3, oneDNN, libc++ and flake8 keep one package name on both (their versions differ:
# Qt 6.4/6.8, Python 3.11/3.13, oneDNN 2/3, LLVM 14/19).
case "$codename" in
  bookworm) llvm=14 ;;
  trixie) llvm=19 ;;
  *)
    echo "install-deps.sh: Debian 12 (bookworm) or 13 (trixie) expected, this is '${codename:-unknown}';" >&2
    echo "trying the Debian 13 package names" >&2
    llvm=19 ;;
esac
PACKAGES="build-essential cmake pkg-config git ccache
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev
  libflatbuffers-dev flatbuffers-compiler libeigen3-dev libfmt-dev libzip-dev
  nlohmann-json3-dev libcli11-dev libdnnl-dev
  clang clang-format clang-tidy libclang-rt-$llvm-dev libc++-dev libc++abi-dev
  xvfb xauth dpkg-dev fakeroot file
  appstream desktop-file-utils libxml2-utils shared-mime-info libglib2.0-bin python3
  libgraphviz-dev chromium fonts-dejavu-core
  python3-dev pybind11-dev python3-numpy python3-pandas python3-pytest python3-distributed python3-tabulate
  flake8"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -q --no-install-recommends $missing
fi
