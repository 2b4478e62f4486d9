#!/usr/bin/env python3
"""Builds a long track from a real one by replaying it (issue 16, item 11: memory on big tracks).

  big-track.py SOURCE.csv FIXES OUT.csv

SOURCE.csv is a `time,lat,lon` track (times ISO 8601 UTC), e.g. `Samples/newson-krumm-bellevue.csv` or the
`track.csv` that `/work/shared/tools/kubicka.py convert` writes. OUT.csv gets FIXES rows: the source's rows again and
again, each replay starting 60 s after the previous one ended (times strictly increasing) and shifted by a small
offset (up to about 2 m, from a fixed seed), so no two replays are identical and the matcher sees real drives on
the real network. Only the Python standard library is used; the output is the same on every run.
"""
import random
import sys
from datetime import datetime, timedelta, timezone


def parse_time(text):
    text = text.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return datetime.fromisoformat(text).astimezone(timezone.utc)


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    source, count, out_path = argv[1], int(argv[2]), argv[3]
    rows = []
    with open(source) as f:
        header = f.readline().strip().split(",")
        ti, la, lo = header.index("time"), header.index("lat"), header.index("lon")
        for line in f:
            parts = line.strip().split(",")
            if len(parts) < 3:
                continue
            rows.append((parse_time(parts[ti]), float(parts[la]), float(parts[lo])))
    if not rows:
        sys.exit(f"{source}: no rows")
    start = rows[0][0]
    span = (rows[-1][0] - start).total_seconds()
    offsets = [(r[0] - start).total_seconds() for r in rows]
    rng = random.Random(16)
    written = 0
    replay = 0
    with open(out_path, "w") as out:
        out.write("time,lat,lon\n")
        while written < count:
            shift = replay * (span + 60.0)
            dlat = rng.uniform(-2e-5, 2e-5)
            dlon = rng.uniform(-2e-5, 2e-5)
            for (t, lat, lon), dt in zip(rows, offsets):
                if written >= count:
                    break
                when = start + timedelta(seconds=shift + dt)
                stamp = when.strftime("%Y-%m-%dT%H:%M:%S")
                if when.microsecond:
                    stamp += f".{when.microsecond // 1000:03d}"
                out.write(f"{stamp}Z,{lat + dlat:.6f},{lon + dlon:.6f}\n")
                written += 1
            replay += 1


if __name__ == "__main__":
    main(sys.argv)
