/// The GPS track file formats RoadSnap reads.
public enum TrackFormat: String, Sendable, CaseIterable {
    case gpx, nmea, csv, geojson

    /// From file extension, else by sniffing content.
    public static func detect(path: String, content: [UInt8]) -> TrackFormat? {
        if let byExtension = fromExtension(path) { return byExtension }
        return sniff(content)
    }

    /// The format a file name's extension names, nil for others (`.txt`, `.log`: their content tells).
    public static func fromExtension(_ path: String) -> TrackFormat? {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return nil }
        switch file[file.index(after: dot)...].lowercased() {
        case "gpx": return .gpx
        case "nmea", "nma": return .nmea
        case "csv", "tsv": return .csv
        case "geojson": return .geojson
        case "json": return .geojson
        default: return nil  // .txt, .log and the like: look at the content
        }
    }

    /// Looks at the first non-blank characters: `<` is XML (GPX), `{`/`[` JSON, `$`/`!` NMEA; a first line with a
    /// comma, semicolon or tab is CSV.
    static func sniff(_ content: [UInt8]) -> TrackFormat? {
        var i = content.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < content.count, isSpace(content[i]) { i += 1 }
        guard i < content.count else { return nil }
        switch content[i] {
        case UInt8(ascii: "<"): return .gpx
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .geojson
        case UInt8(ascii: "$"), UInt8(ascii: "!"): return .nmea
        default: break
        }
        // Logs with a prefix before each sentence (a logger's timestamp) still show "$TTSSS," early on.
        let head = content[i..<min(content.count, i + 4096)]
        if let dollar = head.firstIndex(of: UInt8(ascii: "$")), dollar + 6 < head.endIndex,
           head[(dollar + 1)...(dollar + 5)].allSatisfy({ $0 >= 65 && $0 <= 90 || $0 >= 48 && $0 <= 57 }),
           head[dollar + 6] == UInt8(ascii: ",")
        {
            return .nmea
        }
        let firstLine = head.prefix { $0 != 10 && $0 != 13 }
        if firstLine.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: ";") || $0 == 9 }) { return .csv }
        return nil
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 32 || b == 9 || b == 10 || b == 13 }
}
