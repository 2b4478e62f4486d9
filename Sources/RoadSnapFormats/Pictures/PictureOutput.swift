import RoadSnapCore

/// Pictures of the map view written to files: PNG or SVG by the file's extension, written atomically (nothing
/// half-written: a failure leaves any earlier file in place).
public enum PictureOutput {
    /// The canvas kind of an output path: `.png` raster, `.svg` vector; anything else is an error naming the path.
    public static func kind(forPath path: String) throws(RoadSnapError) -> PictureKind {
        let lower = path.lowercased()
        if lower.hasSuffix(".png") { return .raster }
        if lower.hasSuffix(".svg") { return .svg }
        throw .invalidArgument("\(path): the picture's file name must end in .png or .svg")
    }

    /// Draws the view and writes it to `path` (PNG or SVG by extension).
    public static func write(_ renderer: MapRenderer, _ options: MapViewOptions, overlays: MapOverlays,
                             to path: String) throws(RoadSnapError)
    {
        let bytes = try renderer.picture(options, overlays: overlays, kind: try kind(forPath: path))
        try AtomicFile.write(bytes, to: path)
    }

    /// Parses `WxH` (points), each side a positive number.
    public static func size(_ s: String, flag: String) throws(RoadSnapError) -> (width: Double, height: Double) {
        let parts = s.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]), w.isFinite, h.isFinite else {
            throw .invalidArgument("--\(flag) expects WIDTHxHEIGHT in points, got '\(s)'")
        }
        return (w, h)
    }

    /// Parses comma-separated numbers (`count` of them, or between `count` and `maximum`).
    public static func numbers(_ s: String, flag: String, count: Int, maximum: Int? = nil,
                               form: String) throws(RoadSnapError) -> [Double]
    {
        let parts = s.split(separator: ",", omittingEmptySubsequences: false)
        var values: [Double] = []
        for p in parts {
            guard let v = Double(p.trimmingSpaces), v.isFinite else {
                throw .invalidArgument("--\(flag) expects \(form), got '\(s)'")
            }
            values.append(v)
        }
        guard values.count >= count, values.count <= (maximum ?? count) else {
            throw .invalidArgument("--\(flag) expects \(form), got '\(s)'")
        }
        return values
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}

/// The generated head-unit images written to a directory.
public enum IconSetOutput {
    /// Writes `<maneuver>.png` for every maneuver and `lanes-*.png` for the sample lane sets into `directory`
    /// (created when missing), each file atomically. Returns the file names written.
    @discardableResult
    public static func write(to directory: String, size: Double, scale: Double = 1, style: ManeuverIconStyle,
                             side: DrivingSide) throws(RoadSnapError) -> [String]
    {
        guard size.isFinite, size >= 4, size * scale <= Double(MapViewOptions.maximumSide) else {
            throw .invalidArgument("icon size must be 4...\(MapViewOptions.maximumSide) pixels, got \(size)")
        }
        try FileIO.makeDirectories(directory)
        var names: [String] = []
        for m in Maneuver.allCases {
            let name = m.rawValue + ".png"
            try AtomicFile.write(try ManeuverIcons.png(m, side: side, size: size, scale: scale, style: style),
                                 to: FileIO.join(directory, name))
            names.append(name)
        }
        for set in ManeuverIcons.sampleLaneSets {
            let name = set.name + ".png"
            try AtomicFile.write(try ManeuverIcons.lanesPNG(set.lanes, height: size, scale: scale, style: style),
                                 to: FileIO.join(directory, name))
            names.append(name)
        }
        // One contact sheet of everything (11 icons a row, then the lane strips), for reviewing the set at once.
        let columns = 11, rows = (Maneuver.allCases.count + columns - 1) / columns
        let cell = size * 1.1
        let laneHeight = size * 0.8
        let sheetWidth = max(Double(columns) * cell,
                             ManeuverIcons.sampleLaneSets.map { ManeuverIcons.laneStripWidth(count: $0.lanes.count, height: laneHeight) }
                                .reduce(0) { $0 + $1 + size * 0.2 })
        let sheet = try native { () throws(NativeFailure) in
            try RenderCanvas(kind: .raster, width: sheetWidth, height: Double(rows) * cell + laneHeight * 1.2,
                                         scale: scale)
        }
        sheet.clear(style.primary == ManeuverIconStyle.dark.primary ? RenderColor(rgba: 0x2021_24FF) : RenderColor(rgba: 0xFFFF_FFFF))
        for (i, m) in Maneuver.allCases.enumerated() {
            ManeuverIcons.draw(m, side: side, size: size, style: style, on: sheet, x: Double(i % columns) * cell,
                               y: Double(i / columns) * cell)
        }
        var x = 0.0
        for set in ManeuverIcons.sampleLaneSets {
            ManeuverIcons.drawLanes(set.lanes, height: laneHeight, style: style, on: sheet, x: x, y: Double(rows) * cell)
            x += ManeuverIcons.laneStripWidth(count: set.lanes.count, height: laneHeight) + size * 0.2
        }
        try AtomicFile.write(try native { () throws(NativeFailure) in
            try sheet.encoded()
        }, to: FileIO.join(directory, "sheet.png"))
        names.append("sheet.png")
        return names
    }
}
