#!/usr/bin/env python3
"""Writes newson-krumm-bellevue.nmea: the real Newson & Krumm 2009 drive of Samples/newson-krumm-bellevue.csv as
NMEA 0183 sentences ($GPGGA then $GPRMC per 1 Hz fix, correct checksums).

Positions and times are the recorded ones (degrees rewritten as ddmm.mmmmmm, ~2 mm). The drive has no speed,
course, altitude or HDOP: speed (knots) and course are computed from the previous fix to this one on a sphere
(first fix: to the next one; course left empty below 0.5 m of movement); GGA altitude and HDOP are left empty,
quality is 1 and satellites empty.
Run from this folder: python3 make_newson_krumm_nmea.py
"""
import csv, math, os
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..", "..", "..", "Samples", "newson-krumm-bellevue.csv")


def checksum(body):
    c = 0
    for ch in body.encode("ascii"):
        c ^= ch
    return "%02X" % c


def sentence(body):
    return "$%s*%s" % (body, checksum(body))


def dm(value, degree_digits, hemis):
    hemi = hemis[0] if value >= 0 else hemis[1]
    v = abs(value)
    deg = int(v)
    minutes = (v - deg) * 60
    return "%0*d%09.6f" % (degree_digits, deg, minutes), hemi


def distance_course(a, b):
    r = 6371008.8
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dl = math.radians(b[1] - a[1])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    d = 2 * r * math.asin(math.sqrt(h))
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return d, (math.degrees(math.atan2(y, x)) + 360) % 360


rows = []
with open(SOURCE, newline="") as f:
    for row in csv.DictReader(f):
        t = datetime.strptime(row["time"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        rows.append((t, float(row["lat"]), float(row["lon"])))

out = []
for i, (t, lat, lon) in enumerate(rows):
    j, k = (i - 1, i) if i > 0 else (0, 1)
    d, course = distance_course(rows[j][1:], rows[k][1:])
    dt = (rows[k][0] - rows[j][0]).total_seconds() or 1.0
    knots = d / dt / (1852.0 / 3600.0)
    lat_s, ns = dm(lat, 2, "NS")
    lon_s, ew = dm(lon, 3, "EW")
    hms = t.strftime("%H%M%S") + ".00"
    course_s = "%.2f" % course if d >= 0.5 else ""
    out.append(sentence("GPGGA,%s,%s,%s,%s,%s,1,,,,M,,M,," % (hms, lat_s, ns, lon_s, ew)))
    out.append(sentence("GPRMC,%s,A,%s,%s,%s,%s,%.3f,%s,%s,,,A" % (hms, lat_s, ns, lon_s, ew, knots, course_s,
                                                                t.strftime("%d%m%y"))))

with open(os.path.join(HERE, "newson-krumm-bellevue.nmea"), "w", newline="") as f:
    f.write("\r\n".join(out) + "\r\n")
