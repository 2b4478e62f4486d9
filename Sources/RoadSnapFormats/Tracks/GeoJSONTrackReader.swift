import RoadSnapCore

enum GeoJSONTrackReader {
    static func read(bytes: [UInt8], name: String) throws(RoadSnapError) -> Track {
        throw .invalidTrack(path: name, line: nil, reason: "GeoJSON track reading is not available yet")
    }
}
