#!/usr/bin/env python3
"""Writes newson-krumm-bellevue.nmea: the real Newson & Krumm 2009 drive of Samples/newson-krumm-bellevue.csv as an
NMEA 0183 log (one $GPRMC and one $GPGGA per fix, valid checksums) for replaying through gpsd with gpsfake.

Positions and times are the recorded values, unchanged (rounded to 1e-6 minute in the NMEA format). The drive has
no speed, course or altitude: speed over ground and course are derived from consecutive fixes (WGS84 great-circle
distance and initial bearing to the next fix; the last fix repeats the previous values); altitude is written as
empty in GGA and the fix quality as 1 (GPS) with 8 satellites and HDOP 1.0, since the source does not record them.

Usage: python3 make_nmea.py ../../../../Samples/newson-krumm-bellevue.csv > newson-krumm-bellevue.nmea
"""
import csv
import math
import sys
from datetime import datetime, timezone


def checksum(body: str) -> str:
    c = 0
    for ch in body:
        c ^= ord(ch)
    return f"{c:02X}"


def sentence(body: str) -> str:
    return f"${body}*{checksum(body)}"


def lat_field(lat: float) -> tuple[str, str]:
    a = abs(lat)
    d = int(a)
    m = (a - d) * 60
    return f"{d:02d}{m:09.6f}", "N" if lat >= 0 else "S"


def lon_field(lon: float) -> tuple[str, str]:
    a = abs(lon)
    d = int(a)
    m = (a - d) * 60
    return f"{d:03d}{m:09.6f}", "E" if lon >= 0 else "W"


def distance_bearing(lat1, lon1, lat2, lon2):
    r = 6371008.8
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    d = 2 * r * math.asin(math.sqrt(a))
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return d, (math.degrees(math.atan2(y, x)) + 360) % 360


def main(path: str) -> None:
    rows = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            t = datetime.strptime(row["time"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
            rows.append((t, float(row["lat"]), float(row["lon"])))
    speed_knots, course = 0.0, 0.0
    for i, (t, lat, lon) in enumerate(rows):
        if i + 1 < len(rows):
            t2, lat2, lon2 = rows[i + 1]
            dt = (t2 - t).total_seconds()
            d, b = distance_bearing(lat, lon, lat2, lon2)
            if dt > 0:
                speed_knots = d / dt / 0.514444
            if d > 0.5:
                course = b
        hms = t.strftime("%H%M%S") + ".00"
        dmy = t.strftime("%d%m%y")
        la, ns = lat_field(lat)
        lo, ew = lon_field(lon)
        print(sentence(f"GPRMC,{hms},A,{la},{ns},{lo},{ew},{speed_knots:.2f},{course:.1f},{dmy},,,A"), end="\r\n")
        print(sentence(f"GPGGA,{hms},{la},{ns},{lo},{ew},1,08,1.0,,M,,M,,"), end="\r\n")


if __name__ == "__main__":
    main(sys.argv[1])
