import CShims

/// Owns the raw contents libosmium read from an OSM file: highway and ferry ways, their nodes, turn restrictions.
public final class OSMExtract {
    let handle: OpaquePointer

    /// Reads `.osm.pbf`, `.osm`, `.osm.gz` or `.osm.bz2` (format from the file name).
    package init(path: String) throws(NativeFailure) {
        var out: OpaquePointer?
        var err = [CChar](repeating: 0, count: 512)
        let rc = rsc_osm_read(path, &out, &err, err.count)
        guard rc == RSC_OK, let out else {
            let msg = messageFrom(err)
            if rc == RSC_EIO { throw .unreadableFile(path: path, reason: msg) }
            throw .invalidMap(path: path, reason: msg)
        }
        handle = out
    }

    deinit { rsc_osm_destroy(handle) }

    public var nodeCount: Int { rsc_osm_node_count(handle) }
    public var wayCount: Int { rsc_osm_way_count(handle) }

    /// OSM id, latitude and longitude of node `i`.
    public func node(_ i: Int) -> (id: Int64, latitude: Double, longitude: Double) {
        (rsc_osm_node_ids(handle)[i], rsc_osm_node_lats(handle)[i], rsc_osm_node_lons(handle)[i])
    }

    /// The exit number (`ref` of a motorway_junction) tagged on node `i`, if any.
    public func exitRef(ofNode i: Int) -> String? {
        guard let p = rsc_osm_node_exit_refs(handle)[i] else { return nil }
        return String(cString: p)
    }

    /// OSM id of way `i`.
    public func wayID(_ i: Int) -> Int64 { rsc_osm_way_ids(handle)[i] }

    /// Node indices of way `i` (-1 for a node the file lacks).
    public func wayNodes(_ i: Int) -> [Int32] {
        guard let starts = rsc_osm_way_ref_starts(handle), let refs = rsc_osm_way_refs(handle) else { return [] }
        return Array(UnsafeBufferPointer(start: refs + starts[i], count: starts[i + 1] - starts[i]))
    }

    /// The interpreted tags of way `i`.
    public func wayTags(_ i: Int) -> [String: String] {
        guard let starts = rsc_osm_way_tag_starts(handle), let keys = rsc_osm_tag_keys(handle),
              let values = rsc_osm_tag_values(handle) else { return [:] }
        var tags: [String: String] = [:]
        for k in starts[i]..<starts[i + 1] {
            if let key = keys[k], let value = values[k] { tags[String(cString: key)] = String(cString: value) }
        }
        return tags
    }

    /// Turn restriction relations: restriction value, from way, via node (0 when not a node), to way.
    public var restrictions: [(relation: Int64, restriction: String, fromWay: Int64, viaNode: Int64, toWay: Int64)] {
        let n = rsc_osm_restriction_count(handle)
        guard n > 0, let r = rsc_osm_restrictions(handle) else { return [] }
        return (0..<n).map { i in
            (r[i].relation_id, r[i].restriction.map { String(cString: $0) } ?? "", r[i].from_way, r[i].via_node,
             r[i].to_way)
        }
    }
}
