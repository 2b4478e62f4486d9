# cut.py SRC_DIR OUT_DIR FIRST_FIX LAST_FIX MARGIN_M: a piece of a Kubicka track with the arcs near it, renumbered.
import sys, math, os
src, out, a, b, margin = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
name = src.rstrip('/').split('/')[-1]; oname = out.rstrip('/').split('/')[-1]
rows = lambda p: [l.split() for l in open(f"{src}/{name}.{p}") if l.strip()]
nodes = [(float(x), float(y)) for x, y in rows('nodes')]
arcs = [(int(x), int(y)) for x, y in rows('arcs')]
route = [int(r[0]) for r in rows('route')]
trows = rows('track')[a:b + 1]
track = [(float(r[0]), float(r[1]), float(r[2])) for r in trows]
lat0 = track[0][1]; kx = 111320 * math.cos(math.radians(lat0)); ky = 110540
P = lambda lon, lat: ((lon - track[0][0]) * kx, (lat - lat0) * ky)
pts = [P(lo, la) for lo, la, t in track]
def near(n):
    x, y = P(*nodes[n])
    return min(math.hypot(x - p[0], y - p[1]) for p in pts) <= margin
keepn = {}
for n in range(len(nodes)):
    if near(n): keepn[n] = len(keepn)
keepa = {}
for i, (u, v) in enumerate(arcs):
    if u in keepn and v in keepn: keepa[i] = len(keepa)
# truth: the route arcs from the one nearest the first fix to the one nearest the last fix
def segd(p, A, B):
    dx, dy = B[0] - A[0], B[1] - A[1]; L = dx * dx + dy * dy
    t = 0 if L == 0 else max(0, min(1, ((p[0] - A[0]) * dx + (p[1] - A[1]) * dy) / L))
    return math.hypot(A[0] + t * dx - p[0], A[1] + t * dy - p[1])
def ri(p):
    return min(range(len(route)), key=lambda k: segd(p, P(*nodes[arcs[route[k]][0]]), P(*nodes[arcs[route[k]][1]])))
r0, r1 = ri(pts[0]), ri(pts[-1])
sub = route[r0:r1 + 1]
assert all(x in keepa for x in sub), "truth leaves the cut: widen the margin"
os.makedirs(out, exist_ok=True)
inv = sorted(keepn, key=keepn.get)
with open(f"{out}/{oname}.nodes", "w") as f:
    for n in inv: f.write("%.6f\t%.6f\n" % nodes[n])
with open(f"{out}/{oname}.arcs", "w") as f:
    for i in sorted(keepa, key=keepa.get): f.write("%d\t%d\n" % (keepn[arcs[i][0]], keepn[arcs[i][1]]))
with open(f"{out}/{oname}.route", "w") as f:
    for x in sub: f.write("%d\n" % keepa[x])
with open(f"{out}/{oname}.track", "w") as f:
    for r in trows: f.write("\t".join(r) + "\n")
print(len(keepn), "nodes", len(keepa), "arcs", len(sub), "truth arcs", len(trows), "fixes")
