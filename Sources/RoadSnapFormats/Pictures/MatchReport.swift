import RoadSnapCore

/// `roadsnap match --format html`: one self-contained page per track — the map picture (embedded as a PNG data URI)
/// with the raw fixes joined to where they matched and the sub-matches coloured by confidence, a table of the
/// sub-matches and one of the unmatched fixes.
public enum MatchReport {
    /// Picture size in points.
    public static let pictureWidth = 960.0, pictureHeight = 640.0
    /// Padding around what is drawn.
    public static let picturePadding = 32.0
    /// At most this many unmatched fixes are listed (the count says how many there are).
    public static let unmatchedRows = 1000

    /// Colour of a sub-match by its confidence: green from 0.8, amber from 0.5, red below.
    public static func color(confidence c: Double) -> RenderColor {
        if c >= 0.8 { return RenderColor(rgba: 0x1E8E_3EFF) }
        if c >= 0.5 { return RenderColor(rgba: 0xF29D_00FF) }
        return RenderColor(rgba: 0xD93B_2BFF)
    }

    /// The overlays and camera of a match's picture.
    public static func view(_ result: MatchResult, track: Track) throws(RoadSnapError) -> (MapViewOptions, MapOverlays) {
        var overlays = MapOverlays()
        for sub in result.subMatches where sub.geometry.count >= 2 {
            overlays.routes.append(try RouteLine(coordinates: sub.geometry, color: color(confidence: sub.confidence),
                                                 width: 5))
        }
        for (i, fix) in track.fixes.enumerated() {
            let m = i < result.fixes.count ? result.fixes[i] : nil
            overlays.fixes.append(FixMark(raw: fix.coordinate, matched: m?.coordinate))
        }
        let padding = try EdgeInsets(top: picturePadding, left: picturePadding, bottom: picturePadding,
                                     right: picturePadding)
        let bounds = overlays.bounds ?? GeoBoundingBox(minLatitude: 0, minLongitude: 0, maxLatitude: 0, maxLongitude: 0)
        let camera = try MapCamera.fitting(bounds, width: pictureWidth, height: pictureHeight, padding: padding)
        let options = try MapViewOptions(width: pictureWidth, height: pictureHeight, camera: camera, padding: padding)
        return (options, overlays)
    }

    /// The page. A picture that cannot be drawn (cairo missing) leaves its reason in the page instead.
    public static func html(_ result: MatchResult, track: Track, network: RoadNetwork, areas: MapAreas? = nil)
        -> String
    {
        var picture: String
        do {
            let (options, overlays) = try view(result, track: track)
            let png = try MapRenderer(network: network, areas: areas).picture(options, overlays: overlays,
                                                                                kind: .raster)
            picture = "<img id=\"map\" alt=\"map of the match\" width=\"\(Int(pictureWidth))\" "
                + "height=\"\(Int(pictureHeight))\" src=\"data:image/png;base64,\(base64(png))\">"
        } catch {
            picture = "<p class=\"error\">no picture: \(escape("\(error)"))</p>"
        }
        let matched = result.matchedCount, total = track.fixes.count
        var s = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>RoadSnap match: \(escape(track.name))</title>
        <style>
        body{margin:0;font:14px/1.4 "DejaVu Sans",sans-serif;color:#202124;background:#fff}
        #map{display:block}
        main{padding:8px 16px}
        table{border-collapse:collapse;margin:8px 0 16px}
        td,th{border:1px solid #dadce0;padding:2px 8px;text-align:right}
        th{background:#f1f3f4}
        .swatch{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:middle}
        .error{color:#d93b2b}
        </style></head><body>
        \(picture)
        <main>
        <h1>\(escape(track.name))</h1>
        <p>\(total) fixes, \(matched) matched (\(percent(matched, total))), \(result.subMatches.count) sub-match(es).
        Red dots: raw fixes; green dots: where they matched, joined by grey lines; lines: sub-matches coloured by
        confidence (green &ge; 0.8, amber &ge; 0.5, red below). Map data &copy; OpenStreetMap contributors.</p>
        <h2>Sub-matches</h2>
        <table id="submatches"><tr><th>#</th><th>fixes</th><th>matched</th><th>length (m)</th><th>duration (s)</th>
        <th>confidence</th></tr>

        """
        for (k, sub) in result.subMatches.enumerated() {
            let c = color(confidence: sub.confidence)
            s += "<tr><td>\(k)</td><td>\(sub.firstFix)&ndash;\(sub.lastFix)</td><td>\(sub.matchedFixCount)</td>"
                + "<td>\(fixed(sub.length, 1))</td><td>\(sub.duration.map { fixed($0, 1) } ?? "")</td>"
                + "<td><span class=\"swatch\" style=\"background:\(c)\"></span> \(fixed(sub.confidence, 3))</td></tr>\n"
        }
        s += "</table>\n<h2>Unmatched fixes (\(total - matched))</h2>\n"
        s += "<table id=\"unmatched\"><tr><th>fix</th><th>time</th><th>latitude</th><th>longitude</th></tr>\n"
        var rows = 0
        for (i, fix) in track.fixes.enumerated() where i >= result.fixes.count || result.fixes[i] == nil {
            if rows == unmatchedRows { s += "<tr><td colspan=\"4\">&hellip; and more</td></tr>\n"; break }
            rows += 1
            s += "<tr><td>\(i)</td><td>\(fix.time.map { MatchOutput.isoTime($0) } ?? "")</td>"
                + "<td>\(fixed(fix.coordinate.latitude, 6))</td><td>\(fixed(fix.coordinate.longitude, 6))</td></tr>\n"
        }
        s += "</table>\n</main></body></html>\n"
        return s
    }

    static func percent(_ a: Int, _ b: Int) -> String { b == 0 ? "0 %" : fixed(100 * Double(a) / Double(b), 1) + " %" }

    /// A number with `digits` decimals (no Foundation formatter).
    static func fixed(_ v: Double, _ digits: Int) -> String {
        guard v.isFinite else { return "" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let r = (abs(v) * scale).rounded()
        let whole = Int64(r / scale)
        var frac = String(Int64(r - Double(whole) * scale))
        frac = String(repeating: "0", count: max(0, digits - frac.count)) + frac
        return (v < 0 && r != 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + frac : "")
    }

    /// Text safe inside HTML elements and attribute values.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// Standard base64 with padding.
    public static func base64(_ bytes: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [table[Int(v >> 18)], table[Int(v >> 12 & 63)], table[Int(v >> 6 & 63)], table[Int(v & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let v = UInt32(bytes[i]) << 16
            out += [table[Int(v >> 18)], table[Int(v >> 12 & 63)], UInt8(ascii: "="), UInt8(ascii: "=")]
        } else if rest == 2 {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [table[Int(v >> 18)], table[Int(v >> 12 & 63)], table[Int(v >> 6 & 63)], UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
