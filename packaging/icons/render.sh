#!/bin/sh
# Re-renders the committed PNG icons from etscope.svg (needs rsvg-convert from librsvg2-bin).
set -eu
cd "$(dirname "$0")"
for size in 48 128 256; do
    rsvg-convert -w "$size" -h "$size" etscope.svg -o "etscope-$size.png"
done
