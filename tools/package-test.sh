#!/bin/bash
# Builds the Debian package from a configured build dir, unpacks it into a scratch root and runs
# the installed etscope-cli on a fixture.
#
#   tools/package-test.sh BUILD_DIR [FIXTURE.etdp]
#
# FIXTURE defaults to $ETSCOPE_PACKAGE_TEST_ETDUMP, else the upstream docs tutorial ETDump in
# $ETSCOPE_SHARED_DIR (default: ../shared beside the checkout). Exits non-zero on any failure.
set -euo pipefail

die() { echo "package-test: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: $0 BUILD_DIR [FIXTURE.etdp]"
build=$(cd "$1" && pwd) || die "no build dir $1"
[ -f "$build/CPackConfig.cmake" ] || die "$build is not a configured etscope build dir"
src=$(cd "$(dirname "$0")/.." && pwd)
shared=${ETSCOPE_SHARED_DIR:-$src/../shared}
fixture=${2:-${ETSCOPE_PACKAGE_TEST_ETDUMP:-$shared/fixtures/upstream/docs_tutorial.etdp}}
[ -r "$fixture" ] || die "fixture not readable: $fixture"

cmake --build "$build" -j"${JOBS:-2}" || die "build failed"
rm -rf "$build/package"
(cd "$build" && cpack -G DEB) || die "cpack failed"
shopt -s nullglob
debs=("$build"/package/etscope_*.deb)
[ ${#debs[@]} -eq 1 ] || die "expected exactly one etscope_*.deb in $build/package, found ${#debs[@]}"
deb=${debs[0]}
echo "package-test: built $deb"
dpkg-deb --info "$deb" | sed -n '/Package:/,$p'

root=$(mktemp -d "${TMPDIR:-/tmp}/etscope-pkgroot.XXXXXX")
trap 'rm -rf "$root"' EXIT
dpkg -x "$deb" "$root"
echo "package-test: contents"
dpkg-deb --contents "$deb" | awk '{print "  " $6}'

cli=$root/usr/bin/etscope-cli
[ -x "$cli" ] || die "package lacks usr/bin/etscope-cli"
[ -f "$root/usr/share/mime/packages/io.github.etscope.etscope.xml" ] || die "package lacks the MIME XML"
if [ -e "$build/app/etscope" ] || grep -q '^ETSCOPE_BUILD_GUI:BOOL=ON' "$build/CMakeCache.txt"; then
    for f in usr/bin/etscope usr/share/applications/io.github.etscope.etscope.desktop \
             usr/share/metainfo/io.github.etscope.etscope.metainfo.xml \
             usr/share/icons/hicolor/scalable/apps/etscope.svg \
             usr/share/icons/hicolor/48x48/apps/etscope.png; do
        [ -e "$root/$f" ] || die "GUI build but package lacks $f"
    done
fi

deps=$(dpkg-deb --field "$deb" Depends)
echo "package-test: Depends: $deps"
[ -n "$deps" ] || die "package has no Depends"

version=$("$cli" --version) || die "etscope-cli --version failed"
echo "$version"
grep -q '[0-9]\+\.[0-9]\+\.[0-9]\+' <<<"$version" || die "--version prints no version number"

out=$("$cli" table --etdump "$fixture") || die "etscope-cli table --etdump $fixture failed"
grep -q 'native_call_convolution.out' <<<"$out" \
    || die "etscope-cli table output lacks native_call_convolution.out"
echo "package-test: OK ($(wc -l <<<"$out") table lines from the installed etscope-cli)"
