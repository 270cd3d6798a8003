#!/usr/bin/env python3
"""Writes assets/demo.png, the demo level `make run` loads as mask `demo`.

An 8-bit greyscale PNG of 640x360 whose grey value is the area id (decode it
with rule AUTO or INDEX): a small adventure-game level with an outer wall,
four rooms and a hall joined by doorways, furniture and pillars (area 0), a
road (area 2) and floor (area 1). A path from (20,20) to (600,340) exists but
has to go around walls: the beeline between them is blocked.

Pure standard library (zlib + struct). Usage: scripts/make-demo-mask.py [OUTPUT]
"""

import argparse
import collections
import pathlib
import struct
import sys
import zlib

WIDTH, HEIGHT = 640, 360
WALL, FLOOR, ROAD = 0, 1, 2
START, GOAL = (20, 20), (600, 340)


def build_level():
    grid = [bytearray([FLOOR]) * WIDTH for _ in range(HEIGHT)]

    def rect(x0, y0, x1, y1, area):
        """Fills [x0, x1) x [y0, y1)."""
        for y in range(max(y0, 0), min(y1, HEIGHT)):
            row = grid[y]
            for x in range(max(x0, 0), min(x1, WIDTH)):
                row[x] = area

    def disc(cx, cy, r, area):
        for y in range(cy - r, cy + r + 1):
            for x in range(cx - r, cx + r + 1):
                if (x - cx) ** 2 + (y - cy) ** 2 <= r * r and 0 <= x < WIDTH and 0 <= y < HEIGHT:
                    grid[y][x] = area

    # The road first, so walls and furniture cut it and doorways let it through.
    rect(30, 70, 586, 82, ROAD)  # west to east along the top
    rect(574, 70, 586, 330, ROAD)  # then south to the garden room

    # Outer wall.
    rect(0, 0, WIDTH, 8, WALL)
    rect(0, HEIGHT - 8, WIDTH, HEIGHT, WALL)
    rect(0, 0, 8, HEIGHT, WALL)
    rect(WIDTH - 8, 0, WIDTH, HEIGHT, WALL)

    # West rooms (study above, bedroom below) and the hall between x 208 and 440.
    rect(200, 0, 208, HEIGHT, WALL)
    rect(200, 60, 208, 100, FLOOR)  # study -> hall door (the road passes here)
    rect(200, 270, 208, 310, FLOOR)  # bedroom -> hall door
    rect(0, 176, 200, 184, WALL)
    rect(90, 176, 130, 184, FLOOR)  # study <-> bedroom door

    # East wing: the only door from the hall is at the top; the garden room
    # below is reached through the east wing's storeroom.
    rect(440, 0, 448, HEIGHT, WALL)
    rect(440, 40, 448, 84, FLOOR)
    rect(448, 176, WIDTH, 184, WALL)
    rect(560, 176, 604, 184, FLOOR)

    # Put the road back through the doorways it crosses.
    rect(200, 70, 208, 82, ROAD)
    rect(440, 70, 448, 82, ROAD)
    rect(574, 176, 586, 184, ROAD)

    # Study: a desk and a bookcase.
    rect(60, 110, 140, 150, WALL)
    rect(20, 100, 32, 170, WALL)
    # Bedroom: a bed and a wardrobe.
    rect(30, 220, 80, 250, WALL)
    rect(120, 300, 180, 330, WALL)
    # Hall: two rows of pillars and a fountain.
    for x in (240, 300, 360, 410):
        for y in (120, 290):
            rect(x, y, x + 16, y + 16, WALL)
    disc(324, 205, 32, WALL)
    # Storeroom: crates.
    rect(470, 100, 520, 150, WALL)
    rect(600, 100, 624, 140, WALL)
    rect(530, 20, 560, 50, WALL)
    # Garden room: a long table and a tree.
    rect(470, 230, 550, 260, WALL)
    disc(520, 310, 15, WALL)
    return grid


def connected(grid, start, goal):
    seen = {start}
    queue = collections.deque([start])
    while queue:
        x, y = queue.popleft()
        if (x, y) == goal:
            return True
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= nx < WIDTH and 0 <= ny < HEIGHT and grid[ny][nx] != WALL and (nx, ny) not in seen:
                seen.add((nx, ny))
                queue.append((nx, ny))
    return False


def beeline_blocked(grid, start, goal):
    (x0, y0), (x1, y1) = start, goal
    steps = max(abs(x1 - x0), abs(y1 - y0))
    for i in range(steps + 1):
        x = round(x0 + (x1 - x0) * i / steps)
        y = round(y0 + (y1 - y0) * i / steps)
        if grid[y][x] == WALL:
            return True
    return False


def png_bytes(grid):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(row) for row in grid)  # filter 0 per row
    ihdr = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 0, 0, 0, 0)  # 8-bit greyscale
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def main():
    default = pathlib.Path(__file__).resolve().parent.parent / "assets" / "demo.png"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", type=pathlib.Path, default=default)
    args = parser.parse_args()

    grid = build_level()
    for name, (x, y) in (("start", START), ("goal", GOAL)):
        if grid[y][x] == WALL:
            sys.exit(f"make-demo-mask: the {name} {x},{y} is inside a wall")
    if not connected(grid, START, GOAL):
        sys.exit("make-demo-mask: no path from the start to the goal")
    if not beeline_blocked(grid, START, GOAL):
        sys.exit("make-demo-mask: the beeline is clear; the demo should need a detour")

    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(png_bytes(grid))
    print(f"wrote {args.output} ({WIDTH}x{HEIGHT}, areas 0 wall, 1 floor, 2 road)")


if __name__ == "__main__":
    main()
