#!/usr/bin/env python3
"""Writes two GPX files from the first 30 fixes of the real Newson & Krumm drive (Samples/newson-krumm-bellevue.csv)
to exercise segments, GPX 1.0 course/speed and GPX 1.1 Garmin extensions. Positions and instants are the recorded
ones; speed (m/s) and course are computed from the previous fix on a sphere (first fix: to the next), as in
../nmea/make_newson_krumm_nmea.py.

- newson-krumm-segments-gpx10.gpx (GPX 1.0): <trk> with two <trkseg> (fixes 0-9, 10-19), a second <trk> (20-24),
  then a <rte> (25-29); <course>/<speed> elements; times alternate between `Z`, `.000Z` fractional seconds and the
  local offset `-08:00`.
- newson-krumm-gpx11-garmin.gpx (GPX 1.1): one trkseg with fixes 0-9, speed and course inside
  <extensions><gpxtpx:TrackPointExtension> (Garmin TrackPointExtension v2), hdop 1.2 on every point.
Run from this folder: python3 make_newson_krumm_gpx.py
"""
import csv, math, os
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..", "..", "..", "Samples", "newson-krumm-bellevue.csv")


def distance_course(a, b):
    r = 6371008.8
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dl = math.radians(b[1] - a[1])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return 2 * r * math.asin(math.sqrt(h)), (math.degrees(math.atan2(y, x)) + 360) % 360


rows = []
with open(SOURCE, newline="") as f:
    for row in csv.DictReader(f):
        t = datetime.strptime(row["time"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        rows.append((t, row["lat"], row["lon"]))
        if len(rows) == 30:
            break


def motion(i):
    j, k = (i - 1, i) if i > 0 else (0, 1)
    d, c = distance_course((float(rows[j][1]), float(rows[j][2])), (float(rows[k][1]), float(rows[k][2])))
    return d / (rows[k][0] - rows[j][0]).total_seconds(), c


def stamp(i):
    t = rows[i][0]
    if i % 3 == 1:
        return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    if i % 3 == 2:
        return (t - timedelta(hours=8)).strftime("%Y-%m-%dT%H:%M:%S-08:00")
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def point10(tag, i):
    speed, course = motion(i)
    return ('<%s lat="%s" lon="%s"><time>%s</time><course>%.2f</course><speed>%.3f</speed></%s>'
            % (tag, rows[i][1], rows[i][2], stamp(i), course, speed, tag))


out = ['<?xml version="1.0" encoding="UTF-8"?>',
       '<gpx version="1.0" creator="make_newson_krumm_gpx.py" xmlns="http://www.topografix.com/GPX/1/0">',
       '<trk><name>Newson-Krumm part 1</name>', '<trkseg>']
out += [point10("trkpt", i) for i in range(0, 10)]
out += ['</trkseg>', '<trkseg>']
out += [point10("trkpt", i) for i in range(10, 20)]
out += ['</trkseg>', '</trk>', '<trk><name>Newson-Krumm part 2</name><trkseg>']
out += [point10("trkpt", i) for i in range(20, 25)]
out += ['</trkseg></trk>', '<rte><name>Newson-Krumm part 3</name>']
out += [point10("rtept", i) for i in range(25, 30)]
out += ['</rte>', '</gpx>']
with open(os.path.join(HERE, "newson-krumm-segments-gpx10.gpx"), "w") as f:
    f.write("\n".join(out) + "\n")

out = ['<?xml version="1.0" encoding="UTF-8"?>',
       '<gpx version="1.1" creator="make_newson_krumm_gpx.py" xmlns="http://www.topografix.com/GPX/1/1" '
       'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">',
       '<trk><trkseg>']
for i in range(10):
    speed, course = motion(i)
    out.append('<trkpt lat="%s" lon="%s"><time>%s</time><hdop>1.2</hdop><extensions><gpxtpx:TrackPointExtension>'
               '<gpxtpx:speed>%.3f</gpxtpx:speed><gpxtpx:course>%.2f</gpxtpx:course></gpxtpx:TrackPointExtension>'
               '</extensions></trkpt>' % (rows[i][1], rows[i][2], stamp(i), speed, course))
out += ['</trkseg></trk>', '</gpx>']
with open(os.path.join(HERE, "newson-krumm-gpx11-garmin.gpx"), "w") as f:
    f.write("\n".join(out) + "\n")
