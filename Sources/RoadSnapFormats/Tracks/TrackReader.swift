import RoadSnapCore

/// Reads recorded GPS tracks from GPX, NMEA 0183, CSV and GeoJSON files.
///
/// Unusable rows (NaN or out-of-range coordinates, unparsable values, bad NMEA checksums) are left out and listed in
/// `Track.skipped`, each naming its line; a file with no usable fix at all throws an error naming the file.
public enum TrackReader {
    /// Reads one track file (GPX may have several trk/trkseg/rte: concatenate in order, record segmentStarts).
    /// The path `-` reads standard input.
    public static func read(path: String) throws(RoadSnapError) -> Track {
        let bytes = try FileIO.read(path: path)
        return try read(bytes: bytes, name: path, format: nil)
    }

    /// Reads a track from bytes; `name` is used in messages and for format detection when `format` is nil.
    public static func read(bytes: [UInt8], name: String, format: TrackFormat?) throws(RoadSnapError) -> Track {
        guard bytes.contains(where: { !TrackFormat.isSpace($0) }) else {
            throw .invalidTrack(path: name, line: nil, reason: "the file is empty")
        }
        guard let format = format ?? TrackFormat.detect(path: name, content: bytes) else {
            throw .invalidTrack(path: name, line: 1, reason:
                "unrecognised track format (expected GPX, NMEA 0183, CSV with a header row, or GeoJSON)")
        }
        switch format {
        case .gpx: return try GPXTrackReader.read(bytes: bytes, name: name)
        case .csv: return try CSVTrackReader.read(bytes: bytes, name: name)
        case .nmea: return try NMEATrackReader.read(bytes: bytes, name: name)
        case .geojson: return try GeoJSONTrackReader.read(bytes: bytes, name: name)
        }
    }
}
