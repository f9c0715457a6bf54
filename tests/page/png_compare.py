#!/usr/bin/env python3
"""Compares two PNG images within a tolerance, with nothing but Python's zlib.

A pixel differs when one of its channels differs by more than --threshold
(0-255); the images match when they have the same size and at most
--max-share of their pixels differ. Prints the count and share of differing
pixels and the box around them; exits 0 when they match, 1 when not, 2 when a
file is not a PNG this reads (8 bits a channel, not interlaced: what
Chromium's screenshots are).

Usage: png_compare.py EXPECTED ACTUAL [--threshold T] [--max-share S]
"""
import argparse
import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> channels (grey, RGB, grey+alpha, RGBA)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def unfilter(kind, row, prior, bpp):
    """Undoes a scanline's filter (PNG specification, section 9)."""
    if kind == 0:
        return row
    out = bytearray(row)
    n = len(out)
    if kind == 1:  # Sub
        for i in range(bpp, n):
            out[i] = (out[i] + out[i - bpp]) & 0xFF
    elif kind == 2:  # Up
        out = bytearray((x + y) & 0xFF for x, y in zip(row, prior))
    elif kind == 3:  # Average
        for i in range(n):
            left = out[i - bpp] if i >= bpp else 0
            out[i] = (out[i] + ((left + prior[i]) >> 1)) & 0xFF
    elif kind == 4:  # Paeth
        for i in range(n):
            left = out[i - bpp] if i >= bpp else 0
            upper_left = prior[i - bpp] if i >= bpp else 0
            out[i] = (out[i] + paeth(left, prior[i], upper_left)) & 0xFF
    else:
        raise ValueError(f"unknown filter type {kind}")
    return out


def read_png(path):
    """Returns (width, height, rows), each row its pixels' RGBA bytes."""
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(blob):
        length, kind = struct.unpack(">I4s", blob[pos:pos + 8])
        body = blob[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError(f"{path}: no IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in CHANNELS or interlace != 0:
        raise ValueError(f"{path}: bit depth {depth}, colour type {colour}, interlace {interlace}: "
                         "only 8-bit, non-interlaced grey, RGB and RGBA images are read")
    channels = CHANNELS[colour]
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prior = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        prior = unfilter(raw[start], raw[start + 1:start + 1 + stride], prior, channels)
        rows.append(to_rgba(prior, channels))
    return width, height, rows


def to_rgba(row, channels):
    if channels == 4:
        return bytes(row)
    out = bytearray()
    for i in range(0, len(row), channels):
        px = row[i:i + channels]
        if channels == 1:
            out += bytes((px[0], px[0], px[0], 255))
        elif channels == 2:
            out += bytes((px[0], px[0], px[0], px[1]))
        else:
            out += bytes(px) + b"\xff"
    return bytes(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("expected")
    parser.add_argument("actual")
    parser.add_argument("--threshold", type=int, default=64, help="a channel's difference that makes a pixel differ")
    parser.add_argument("--max-share", type=float, default=0.005, help="the share of pixels that may differ")
    args = parser.parse_args()
    try:
        w1, h1, rows1 = read_png(args.expected)
        w2, h2, rows2 = read_png(args.actual)
    except (OSError, ValueError, zlib.error, struct.error) as e:
        print(f"png_compare: {e}")
        return 2
    if (w1, h1) != (w2, h2):
        print(f"sizes differ: {args.expected} is {w1}x{h1}, {args.actual} is {w2}x{h2}")
        return 1
    differing, box = 0, [w1, h1, -1, -1]
    for y, (r1, r2) in enumerate(zip(rows1, rows2)):
        if r1 == r2:
            continue
        for x in range(w1):
            i = 4 * x
            if max(abs(r1[i + c] - r2[i + c]) for c in range(4)) > args.threshold:
                differing += 1
                box = [min(box[0], x), min(box[1], y), max(box[2], x), max(box[3], y)]
    share = differing / (w1 * h1)
    where = f", within x {box[0]}-{box[2]}, y {box[1]}-{box[3]}" if differing else ""
    verdict = "match" if share <= args.max_share else "differ"
    print(f"{differing} of {w1 * h1} pixels differ by more than {args.threshold} "
          f"(share {share:.4%}, at most {args.max_share:.4%}){where}: the images {verdict}")
    return 0 if verdict == "match" else 1


if __name__ == "__main__":
    sys.exit(main())
