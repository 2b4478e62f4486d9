import RoadSnapBridge
import RoadSnapCore

/// Pictures of the map view written to files: PNG or SVG by the file's extension, written atomically (nothing
/// half-written: a failure leaves any earlier file in place).
public enum PictureOutput {
    /// The canvas kind of an output path: `.png` raster, `.svg` vector; anything else is an error naming the path.
    public static func kind(forPath path: String) throws(RoadSnapError) -> RenderCanvas.Kind {
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
