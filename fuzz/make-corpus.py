#!/usr/bin/python3
"""Writes the seed corpus of every fuzz target under fuzz/corpus/<target>/.

Deterministic: running it again gives the same files (they are committed;
re-run after changing an input layout). Each decoder seed starts with the
three option bytes of decode_fuzzer.cc (rule and palette size, raw width,
raw height, then palette entries) followed by a small image: PNGs of every
colour type, plain and binary PGM/PBM, Moving AI maps, raw bytes.
"""
import os
import random
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")

AUTO, INDEX, NONZERO, BLUE_BIT7, PALETTE = range(5)


def options(rule, raw_width=0, raw_height=0, palette=()):
    head = bytes([rule | (len(palette) << 3), raw_width, raw_height])
    for colour, area in palette:
        head += bytes([colour >> 16 & 255, colour >> 8 & 255, colour & 255, area])
    return head


def png(width, height, colour_type, bit_depth, rows, plte=None, trns=None, interlace=0):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    out = b"\x89PNG\r\n\x1a\n"
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0,
                                      interlace))
    if plte is not None:
        out += chunk(b"PLTE", plte)
    if trns is not None:
        out += chunk(b"tRNS", trns)
    raw = b"".join(b"\x00" + row for row in rows)  # filter type 0 on every row
    out += chunk(b"IDAT", zlib.compress(raw))
    out += chunk(b"IEND", b"")
    return out


def write(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def decoder_seeds():
    w, h = 6, 4
    grey = [bytes((x + y) % 4 for x in range(w)) for y in range(h)]
    seeds = {
        "png": {
            "grey8.png": options(INDEX) + png(w, h, 0, 8, grey),
            "grey1.png": options(NONZERO) + png(8, 2, 0, 1, [b"\xa5", b"\x5a"]),
            "grey16.png": options(BLUE_BIT7) + png(2, 2, 0, 16, [b"\x00\x01\x80\x00",
                                                                 b"\xff\xff\x00\x00"]),
            "palette.png": options(INDEX) + png(4, 2, 3, 8, [b"\x00\x01\x02\x01", b"\x02\x02\x00\x01"],
                                                plte=b"\x00\x00\x00\x00\xff\x00\x00\x00\xff",
                                                trns=b"\xff\xff\x00"),
            "palette4.png": options(PALETTE, palette=[(0x00ff00, 1), (0x0000ff, 2)]) +
            png(4, 1, 3, 4, [b"\x01\x20"], plte=b"\x00\x00\x00\x00\xff\x00\x00\x00\xff"),
            "rgb.png": options(AUTO) + png(2, 2, 2, 8, [b"\x00\x00\x00\x00\xff\x00",
                                                         b"\x00\x00\xff\x10\x10\x80"]),
            "rgba.png": options(BLUE_BIT7) + png(2, 1, 6, 8, [b"\x00\x00\xff\xff\x00\x00\xff\x00"]),
            "grey-alpha.png": options(NONZERO) + png(2, 1, 4, 8, [b"\x05\xff\x05\x00"]),
            "grey8-adam7.png": options(INDEX) + png(1, 1, 0, 8, [b"\x03"], interlace=1),
        },
        "netpbm": {
            "p1.pbm": options(AUTO) + b"P1\n# walls\n4 2\n0 1 1 0\n1 0 0 1\n",
            "p4.pbm": options(NONZERO) + b"P4\n8 2\n\xa5\x5a",
            "p2.pgm": options(INDEX) + b"P2\n3 2\n63\n0 1 2\n3 63 5\n",
            "p5.pgm": options(BLUE_BIT7) + b"P5 4 1 255\n\x00\x80\xff\x7f",
            "p5-16bit.pgm": options(INDEX) + b"P5\n2 1\n65535\n\x00\x01\x00\x3f",
            "p5-palette.pgm": options(PALETTE, palette=[(0xffffff, 7)]) + b"P5 2 1 1\n\x00\x01",
        },
        "movingai": {
            "room.map": options(AUTO) + b"type octile\nheight 3\nwidth 4\nmap\n.@..\n.TG.\nS..W\n",
            "crlf.map": options(NONZERO) + b"type octile\r\nwidth 2\r\nheight 2\r\nmap\r\n.@\r\nO.\r\n",
        },
        "raw": {
            "ids.raw": options(AUTO, 3, 2) + bytes([0, 1, 2, 63, 1, 0]),
            "nonzero.raw": options(NONZERO, 2, 2) + bytes([0, 200, 1, 0]),
            "one.raw": options(INDEX, 1, 1) + b"\x01",
        },
    }
    for target, files in seeds.items():
        for name, data in files.items():
            write("decode_" + target, name, data)
            if target != "raw":  # RAW cannot be sniffed
                write("decode_auto", name, data)


def path_seeds():
    rng = random.Random(20261123)
    for i in range(12):
        w, h = rng.randint(1, 24), rng.randint(1, 24)
        walls = rng.choice([0.0, 0.2, 0.4])
        flags = i % 64
        header = bytes([w - 1, h - 1, flags, rng.randrange(w), rng.randrange(h), rng.randrange(w),
                        rng.randrange(h), rng.choice([0, 0, 0b110, 0b1010])])
        header += bytes(rng.randint(1, 9) for _ in range(7))
        pixels = bytes(0 if rng.random() < walls else rng.randint(1, 3) for _ in range(w * h))
        write("find_path", "random-%02d" % i, header + pixels)
    for i in range(8):
        w, h = rng.randint(2, 12), rng.randint(2, 12)
        header = bytes([w - 1, h - 1, i % 6, rng.randrange(w), rng.randrange(h), rng.randrange(w),
                        rng.randrange(h), 0])
        tiles = bytes(0 if rng.random() < 0.25 else 1 for _ in range(w * h))
        write("standard_move", "random-%02d" % i, header + tiles)
    # Agent clearance (flag bits 6-7, its byte after the pixels): open rooms
    # with a few walls, so clearances of 1-3 pixels leave some pixels usable.
    for i in range(6):
        w, h = rng.randint(8, 24), rng.randint(8, 24)
        mode = (1, 1, 1, 2, 3, 3)[i]
        flags = (mode << 6) | rng.choice([0, 1, 0b11, 0b1101, 0b10001])
        header = bytes([w - 1, h - 1, flags, rng.randrange(w), rng.randrange(h), rng.randrange(w),
                        rng.randrange(h), 0])
        header += bytes(rng.randint(1, 9) for _ in range(7))
        pixels = bytes(0 if rng.random() < 0.08 else 1 for _ in range(w * h))
        clearance = rng.randint(8, 48) if mode == 1 else rng.randrange(256)
        write("find_path", "clearance-%02d" % i, header + pixels + bytes([clearance]))


def field_seeds():
    """field_fuzzer.cc: size, flags, goal, crop (4 uint32), downsample, 7 costs, areas."""
    rng = random.Random(20261127)
    crops = [(0, 0, 0, 0), (1, 1, 3, 2), (0, 0, 0, 5), (2, 0, 40, 1), (0xFFFFFFFF, 0, 2, 2)]
    for i in range(10):
        w, h = rng.randint(1, 20), rng.randint(1, 20)
        flags = (i % 8) | (8 if i % 3 else 0)
        header = bytes([w - 1, h - 1, flags, rng.randrange(w), rng.randrange(h)])
        header += struct.pack("<4I", *crops[i % len(crops)])
        header += bytes([rng.choice([0, 1, 2, 3, 7])])
        header += bytes(rng.randint(1, 9) for _ in range(7))
        pixels = bytes(0 if rng.random() < 0.25 else rng.randint(1, 3) for _ in range(w * h))
        write("field", "random-%02d" % i, header + pixels)


def line_seeds():
    rng = random.Random(20261127)
    for i in range(10):
        w, h = rng.randint(1, 24), rng.randint(1, 24)
        walls = rng.choice([0.0, 0.1, 0.3, 0.6])
        header = bytes([w - 1, h - 1, i % 2] + [rng.randrange(w) if j % 2 == 0 else rng.randrange(h)
                                                for j in range(6)] + [rng.choice([0, 0, 0b110])])
        pixels = bytes(0 if rng.random() < walls else rng.randint(1, 3) for _ in range(w * h))
        write("line_queries", "random-%02d" % i, header + pixels)


def range_seeds():
    """range_fuzzer.cc: size, flags, start, budget*8, clearance*8, 7 costs, obstacle, target, areas."""
    rng = random.Random(20261129)
    for i in range(10):
        w, h = rng.randint(1, 24), rng.randint(1, 24)
        flags = rng.choice([0, 1, 3, 0b101, 0b1011, 0b10001, 0b11111])
        budget = rng.randint(4, 400)
        header = bytes([w - 1, h - 1, flags, rng.randrange(w), rng.randrange(h),
                        budget & 0xFF, budget >> 8, rng.choice([0, 0, 6, 12, 20])])
        header += bytes(rng.randint(1, 9) for _ in range(7))
        header += bytes([rng.randrange(w), rng.randrange(h), rng.randint(1, 5), rng.randint(1, 5),
                         rng.randrange(w), rng.randrange(h)])
        pixels = bytes(0 if rng.random() < 0.2 else rng.randint(1, 3) for _ in range(w * h))
        write("range", "random-%02d" % i, header + pixels)


if __name__ == "__main__":
    decoder_seeds()
    path_seeds()
    field_seeds()
    line_seeds()
    range_seeds()
