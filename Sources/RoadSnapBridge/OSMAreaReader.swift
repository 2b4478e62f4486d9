import CShims

/// Water and buildings read from an OSM file by libosmium's area assembler (CShims/osm_areas.cpp), as flat
/// arrays: area `i` has kind `kinds[i]` (1 water, 2 building) and rings `ringFirsts[i]..<ringFirsts[i+1]`; ring `r`
/// has points `pointFirsts[r]..<pointFirsts[r+1]` in `latitudes`/`longitudes`.
public struct OSMAreaArrays: Sendable {
    public var kinds: [UInt8] = []
    public var ringFirsts: [Int64] = [0]
    public var pointFirsts: [Int64] = [0]
    public var latitudes: [Double] = []
    public var longitudes: [Double] = []

    /// An empty set.
    public init() {}

    /// Reads the areas of `.osm.pbf`, `.osm`, `.osm.gz` or `.osm.bz2`; fails naming the file.
    package init(osmPath path: String) throws(NativeFailure) {
        var out: OpaquePointer?
        var err = [CChar](repeating: 0, count: 512)
        let rc = rsc_areas_read(path, &out, &err, err.count)
        guard rc == RSC_OK, let out else {
            let msg = messageFrom(err)
            if rc == RSC_EIO { throw .unreadableFile(path: path, reason: msg) }
            throw .invalidMap(path: path, reason: msg)
        }
        defer { rsc_areas_destroy(out) }
        let n = rsc_areas_count(out), rings = rsc_areas_ring_count(out), points = rsc_areas_point_count(out)
        if n > 0, let k = rsc_areas_kinds(out), let rf = rsc_areas_ring_firsts(out) {
            kinds = Array(UnsafeBufferPointer(start: k, count: n))
            ringFirsts = Array(UnsafeBufferPointer(start: rf, count: n + 1))
        }
        if let pf = rsc_areas_point_firsts(out) { pointFirsts = Array(UnsafeBufferPointer(start: pf, count: rings + 1)) }
        if points > 0, let la = rsc_areas_lats(out), let lo = rsc_areas_lons(out) {
            latitudes = Array(UnsafeBufferPointer(start: la, count: points))
            longitudes = Array(UnsafeBufferPointer(start: lo, count: points))
        }
    }
}
