import RoadSnapCore

enum NMEATrackReader {
    static func read(bytes: [UInt8], name: String) throws(RoadSnapError) -> Track {
        throw .invalidTrack(path: name, line: nil, reason: "NMEA reading is not available yet")
    }
}
