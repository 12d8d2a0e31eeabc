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

# Build only what gets installed (cpack itself does not build); PACKAGE_TARGETS overrides.
gui=OFF
if grep -q '^ETSCOPE_BUILD_GUI:BOOL=ON' "$build/CMakeCache.txt"; then gui=ON; fi
default_targets=etscope-cli
if [ $gui = ON ]; then default_targets="etscope-cli etscope"; fi
if grep -q '^ETSCOPE_BUILD_PYTHON:BOOL=ON' "$build/CMakeCache.txt"; then
    default_targets="$default_targets etscope_python"
fi
targets=${PACKAGE_TARGETS:-$default_targets}
# shellcheck disable=SC2086
cmake --build "$build" --target $targets -j"${JOBS:-2}" || die "build failed"
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
if [ $gui = ON ]; then
    for f in usr/bin/etscope usr/share/applications/io.github.etscope.etscope.desktop \
             usr/share/metainfo/io.github.etscope.etscope.metainfo.xml \
             usr/share/icons/hicolor/scalable/apps/etscope.svg \
             usr/share/icons/hicolor/48x48/apps/etscope.png; do
        [ -e "$root/$f" ] || die "GUI build but package lacks $f"
    done
fi

# The installed MIME XML detects our files by content (renamed copies, no extension help).
if command -v update-mime-database >/dev/null && command -v gio >/dev/null \
        && [ -f /usr/share/mime/packages/freedesktop.org.xml ]; then
    mimeroot=$root/mimecheck
    mkdir -p "$mimeroot/mime/packages" "$mimeroot/files"
    cp "$root/usr/share/mime/packages/io.github.etscope.etscope.xml" /usr/share/mime/packages/freedesktop.org.xml \
        "$mimeroot/mime/packages/"
    update-mime-database "$mimeroot/mime" >/dev/null 2>&1
    check_mime() { # FILE EXPECTED
        cp "$1" "$mimeroot/files/sample.bin"
        local got
        got=$(XDG_DATA_HOME=$mimeroot XDG_DATA_DIRS=$mimeroot gio info -a standard::content-type \
                  "$mimeroot/files/sample.bin" | sed -n 's/.*standard::content-type: //p')
        [ "$got" = "$2" ] || die "MIME type of $1 by content is '$got', expected $2"
    }
    check_mime "$fixture" application/x-etdump
    for f in "$shared/fixtures/runtime/bundled_program_50runs/bundled_program.bpte:application/x-executorch-bundled-program" \
             "$shared/fixtures/runtime/add_pte_50runs/add.pte:application/x-executorch-program" \
             "$src/tests/data/program/ptd/external.ptd:application/x-executorch-data" \
             "$shared/fixtures/upstream/example_etrecord_v0.bin:application/x-etrecord"; do
        [ -r "${f%%:*}" ] && check_mime "${f%%:*}" "${f##*:}"
    done
    echo "package-test: MIME types detected by content"
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
# The Python package, when built: the system python3 imports it from the unpacked tree and
# prints the same table as the installed CLI.
pydir=$(find "$root/usr/lib" -maxdepth 3 -type d -name etscope -path '*dist-packages*' -print -quit 2>/dev/null)
if [ -n "$pydir" ]; then
    grep -q 'python3-numpy' <<<"$deps" || die "package ships etscope for Python but does not depend on python3-numpy"
    site=${pydir#"$root"}; site=${site%/etscope}
    /usr/bin/python3 -c "import sys; sys.exit(sys.argv[1] not in sys.path)" "$site" \
        || die "the package puts etscope in $site, which Debian's python3 does not search"
    pyout=$(PYTHONPATH=$(dirname "$pydir") /usr/bin/python3 -W ignore -c \
        "import sys, etscope; etscope.Inspector(etdump_path=sys.argv[1]).print_data_tabular()" "$fixture") \
        || die "import etscope from the package failed"
    [ "$pyout" = "$out" ] || die "etscope.Inspector.print_data_tabular differs from etscope-cli table"
    echo "package-test: import etscope from $(dirname "$pydir") prints the CLI's table"
fi
echo "package-test: OK ($(wc -l <<<"$out") table lines from the installed etscope-cli)"
