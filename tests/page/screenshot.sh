#!/bin/sh
# A step of a page as a picture: headless Chromium's screenshot of the page
# check --html writes for Figure 4's lost update, at step 14 of outcome 1's
# witness (both sums in transit towards the Writes: the paper's Figure 4),
# compared with the checked-in figure-4-step-14.png within a tolerance: a
# pixel differs when one of its channels differs by more than 64 of 255, and
# at most 0.25% of the pixels may differ. So that the picture is the same on
# every machine with Debian's packages, the window's size is fixed and the
# browser sees no fonts but DejaVu Sans and DejaVu Sans Mono (fonts-dejavu-core),
# through a fontconfig of its own, which also fixes how glyphs are smoothed
# (grey antialiasing, slight hinting) where a machine's settings would change
# it. The next step's screenshot must differ beyond the tolerance, so that the
# tolerance still tells steps apart.
# Exits 77 (skipped) where Chromium, python3 or the DejaVu fonts are absent.
# Usage: screenshot.sh TFSEM SOURCE_DIR [--record]
#   --record: write the screenshot as the checked-in one instead of comparing.
set -eu
TFSEM=$1
SRC=$2
RECORD=${3:-}
STEP=14
SIZE=1200,780
THRESHOLD=64
MAX_SHARE=0.0025
reference=$SRC/tests/page/figure-4-step-$STEP.png
fonts=/usr/share/fonts/truetype/dejavu
. "$SRC/tests/page/browser.sh"
command -v python3 > /dev/null || { echo "no python3: skipped"; exit 77; }
[ -f "$fonts/DejaVuSans.ttf" ] && [ -f "$fonts/DejaVuSansMono.ttf" ] || { echo "no fonts-dejavu-core: skipped"; exit 77; }

cat > "$work/fonts.conf" <<CONF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>$fonts</dir>
  <cachedir>$work/fontconfig</cachedir>
  <selectfont>
    <rejectfont><glob>$fonts/*</glob></rejectfont>
    <acceptfont>
      <glob>$fonts/DejaVuSans.ttf</glob><glob>$fonts/DejaVuSans-Bold.ttf</glob>
      <glob>$fonts/DejaVuSansMono.ttf</glob><glob>$fonts/DejaVuSansMono-Bold.ttf</glob>
    </acceptfont>
  </selectfont>
  <alias><family>monospace</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
  <match target="font">
    <edit name="antialias" mode="assign"><bool>true</bool></edit>
    <edit name="rgba" mode="assign"><const>none</const></edit>
    <edit name="autohint" mode="assign"><bool>false</bool></edit>
    <edit name="hintstyle" mode="assign"><const>hintslight</const></edit>
  </match>
</fontconfig>
CONF
# shot STEP FILE: the page at STEP of outcome 1's witness, as a PNG.
shot() {
  rm -f "$2"
  FONTCONFIG_FILE=$work/fonts.conf headless --hide-scrollbars --window-size=$SIZE --screenshot="$2" \
    "file://$work/f4.html#witness=0&step=$1" > /dev/null || true
  [ -s "$2" ] || { echo "chromium wrote no screenshot of step $1"; exit 1; }
}
compare() { python3 "$SRC/tests/page/png_compare.py" --threshold $THRESHOLD --max-share $MAX_SHARE "$@"; }

"$TFSEM" check "$SRC/models/figure-4-lost-update.json" --html "$work/f4.html" > /dev/null || [ $? -eq 1 ]
shot $STEP "$work/step.png"
if [ "$RECORD" = --record ]; then
  cp "$work/step.png" "$reference"
  echo "recorded $reference"
  exit 0
fi
echo "step $STEP against $reference:"
compare "$reference" "$work/step.png" || { echo "the page at step $STEP does not look as recorded (re-record: $0 TFSEM SOURCE_DIR --record)"; exit 1; }
shot $((STEP + 1)) "$work/next.png"
echo "step $((STEP + 1)) against it:"
if compare "$reference" "$work/next.png"; then
  echo "the tolerance does not tell step $STEP from step $((STEP + 1))"
  exit 1
fi
