import RoadSnapCHeader
import RoadSnapCore
import RoadSnapFormats

/// What an `rs_track` handle holds: a track read from a file (immutable).
final class TrackObject: HandleObject {
    let track: Track
    init(_ track: Track) { self.track = track }
}

extension rs_fix {
    /// The C form of a fix (unknown fields NAN).
    public init(_ f: Fix) {
        self.init(latitude: f.coordinate.latitude, longitude: f.coordinate.longitude, time: f.time ?? .nan,
                  course: f.course ?? .nan, speed: f.speed ?? .nan, altitude: f.altitude ?? .nan,
                  accuracy: f.horizontalAccuracy ?? .nan)
    }
}

@implementation @c
public func rs_track_open(_ path: UnsafePointer<CChar>?, _ outTrack: UnsafeMutablePointer<OpaquePointer?>?)
    -> rs_status
{
    creatingHandle(outTrack, named: "out_track", kind: .track) { () throws(APIFailure) in
        guard let path else { throw .null("path") }
        return try TrackObject(bridging { () throws(RoadSnapError) in try TrackReader.read(path: String(cString: path)) })
    }
}

@implementation @c
public func rs_track_close(_ track: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in try HandleTable.shared.remove(track, .track) }
}

@implementation @c
public func rs_track_get_info(_ track: OpaquePointer?, _ outInfo: UnsafeMutablePointer<rs_track_info>?) -> rs_status {
    reading(track, .track, as: TrackObject.self, into: outInfo, named: "out_info") { o in
        rs_track_info(fix_count: Int64(o.track.fixes.count), skipped_count: Int64(o.track.skipped.count),
                      segment_count: Int64(max(1, o.track.segmentStarts.count)))
    }
}

@implementation @c
public func rs_track_get_fixes(_ track: OpaquePointer?, _ first: Int, _ out: UnsafeMutablePointer<rs_fix>?,
                               _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let t = try HandleTable.shared.lookup(track, .track, as: TrackObject.self).track
        outCount?.pointee = 0
        guard first >= 0, first <= t.fixes.count else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "first \(UInt(bitPattern: first)) beyond the \(t.fixes.count) fixes")
        }
        guard capacity >= 0 else { throw APIFailure(RS_E_INVALID_ARGUMENT, "capacity too large") }
        let n = min(capacity, t.fixes.count - first)
        if n == 0 { return }
        guard let out else { throw .null("out") }
        for i in 0..<n { out[i] = rs_fix(t.fixes[first + i]) }
        outCount?.pointee = n
    }
}
