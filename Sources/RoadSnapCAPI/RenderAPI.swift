import RoadSnapCHeader
import RoadSnapCore

// Pictures (issue 14): the map view and maneuver icons into caller-owned RGBA buffers.

/// Checks a caller's RGBA buffer for `width` x `height` pixels.
private func checkBuffer(_ out: UnsafeMutablePointer<UInt8>?, stride: Int, size: Int, width: Int, height: Int)
    throws(APIFailure) -> UnsafeMutableRawBufferPointer
{
    guard let out else { throw .null("out") }
    guard stride >= width * 4 else {
        throw APIFailure(RS_E_BUFFER_TOO_SMALL, "stride \(stride) bytes: \(width * 4) needed for \(width) pixels a row")
    }
    guard size >= stride * height else {
        throw APIFailure(RS_E_BUFFER_TOO_SMALL, "out_size \(size) bytes: \(stride * height) needed (\(height) rows)")
    }
    return UnsafeMutableRawBufferPointer(start: out, count: size)
}

@implementation @c
public func rs_render_options_init(_ options: UnsafeMutablePointer<rs_render_options>?) -> rs_status {
    apiCall { () throws(APIFailure) in
        guard let options else { throw .null("options") }
        options.pointee = rs_render_options(
            size: UInt32(MemoryLayout<rs_render_options>.size), width: 640, height: 480, scale: 1, latitude: 0,
            longitude: 0, zoom: 16, bearing: 0, tilt: 0, padding_top: 0, padding_left: 0, padding_bottom: 0,
            padding_right: 0, style: RS_STYLE_LIGHT, map_type: RS_MAP_TYPE_NORMAL, background_rgba: 0,
            show_my_location: 0, my_latitude: 0, my_longitude: 0, my_course: .nan, my_accuracy: .nan,
            route_latlon: nil, route_count: 0, route_driven: 0, marker_latlon: nil, marker_count: 0, fix_latlon: nil,
            fix_matched_latlon: nil, fix_count: 0)
    }
}

@implementation @c
public func rs_render_rgba(_ map: OpaquePointer?, _ options: UnsafePointer<rs_render_options>?,
                           _ out: UnsafeMutablePointer<UInt8>?, _ stride: Int, _ outSize: Int) -> rs_status
{
    apiCall { () throws(APIFailure) in
        guard let options else { throw .null("options") }
        // Fields beyond the caller's size keep their defaults.
        var o = rs_render_options()
        _ = rs_render_options_init(&o)
        let given = options.pointee.size
        guard given >= 8 else { throw APIFailure(RS_E_INVALID_ARGUMENT, "options->size \(given): call rs_render_options_init") }
        withUnsafeMutableBytes(of: &o) { dst in
            let n = min(Int(given), MemoryLayout<rs_render_options>.size)
            dst.copyMemory(from: UnsafeRawBufferPointer(start: options, count: n))
        }
        o.size = UInt32(MemoryLayout<rs_render_options>.size)
        let mapObject: MapObject? = try map.map { m throws(APIFailure) in
            try HandleTable.shared.lookup(m, .map, as: MapObject.self)
        }
        let view = try bridging { () throws(RoadSnapError) -> MapViewOptions in
            guard o.style == RS_STYLE_LIGHT || o.style == RS_STYLE_DARK else {
                throw .invalidArgument("style \(o.style): RS_STYLE_LIGHT or RS_STYLE_DARK")
            }
            guard o.map_type == RS_MAP_TYPE_NORMAL || o.map_type == RS_MAP_TYPE_NONE else {
                throw .invalidArgument("map_type \(o.map_type): RS_MAP_TYPE_NORMAL or RS_MAP_TYPE_NONE")
            }
            let camera = try MapCamera(target: GeoCoordinate(uncheckedLatitude: o.latitude, longitude: o.longitude),
                                       zoom: o.zoom, bearing: o.bearing, tilt: o.tilt)
            var me: MyLocation?
            if o.show_my_location != 0 {
                me = try MyLocation(coordinate: try GeoCoordinate(latitude: o.my_latitude, longitude: o.my_longitude),
                                    course: o.my_course.isNaN ? nil : o.my_course,
                                    accuracy: o.my_accuracy.isNaN ? nil : o.my_accuracy)
            }
            return try MapViewOptions(
                width: Double(o.width), height: Double(o.height), scale: o.scale, camera: camera,
                background: o.background_rgba == 0 ? nil : RenderColor(rgba: o.background_rgba),
                mapType: o.map_type == RS_MAP_TYPE_NONE ? .none : .normal,
                padding: try EdgeInsets(top: o.padding_top, left: o.padding_left, bottom: o.padding_bottom,
                                        right: o.padding_right),
                colorScheme: o.style == RS_STYLE_DARK ? .dark : .light, myLocation: me)
        }
        let overlays = try renderOverlays(o)
        let canvas = try bridging { () throws(RoadSnapError) in
            try native { () throws(NativeFailure) in
                try RenderCanvas(kind: .raster, width: view.width, height: view.height, scale: view.scale)
            }
        }
        let buffer = try checkBuffer(out, stride: stride, size: outSize, width: canvas.pixelWidth,
                                     height: canvas.pixelHeight)
        if let mapObject {
            try mapObject.withRenderer { $0.draw(view, overlays: overlays, on: canvas) }
        } else {
            let renderer = try bridging { () throws(RoadSnapError) in try MapRenderer(network: nil) }
            renderer.draw(view, overlays: overlays, on: canvas)
        }
        try bridging { () throws(RoadSnapError) in try native { () throws(NativeFailure) in
            try canvas.rgba(into: buffer, stride: stride)
        } }
    }
}

/// The coordinates of `count` (latitude, longitude) pairs; `field` names the array in errors. A NaN pair is nil
/// when `allowsMissing`.
private func latLonPairs(_ p: UnsafePointer<Double>?, _ count: Int, _ field: String, allowsMissing: Bool = false)
    throws(APIFailure) -> [GeoCoordinate?]
{
    guard count > 0 else { return [] }
    guard let p else { throw .null(field) }
    guard count <= 100_000_000 else { throw APIFailure(RS_E_INVALID_ARGUMENT, "\(field): count \(count) too large") }
    var out: [GeoCoordinate?] = []
    out.reserveCapacity(count)
    for i in 0..<count {
        let lat = p[2 * i], lon = p[2 * i + 1]
        if allowsMissing && lat.isNaN && lon.isNaN { out.append(nil); continue }
        do throws(RoadSnapError) {
            out.append(try GeoCoordinate(latitude: lat, longitude: lon))
        } catch {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "\(field)[\(i)]: \(lat),\(lon) is not a coordinate")
        }
    }
    return out
}

/// The overlays of the options' appended fields (route line, markers, fixes).
private func renderOverlays(_ o: rs_render_options) throws(APIFailure) -> MapOverlays {
    var overlays = MapOverlays()
    let route = try latLonPairs(o.route_latlon, o.route_count, "route_latlon").compactMap { $0 }
    if route.count >= 2 {
        overlays.routes = [try bridging { () throws(RoadSnapError) in
            try RouteLine(coordinates: route, drivenDistance: o.route_driven)
        }]
    }
    overlays.markers = try latLonPairs(o.marker_latlon, o.marker_count, "marker_latlon").compactMap { $0 }
        .map { MapMarker(coordinate: $0) }
    let raw = try latLonPairs(o.fix_latlon, o.fix_count, "fix_latlon").compactMap { $0 }
    let matched = o.fix_matched_latlon == nil ? [GeoCoordinate?](repeating: nil, count: raw.count)
        : try latLonPairs(o.fix_matched_latlon, o.fix_count, "fix_matched_latlon", allowsMissing: true)
    overlays.fixes = zip(raw, matched).map { FixMark(raw: $0, matched: $1) }
    return overlays
}

@implementation @c
public func rs_icon_options_init(_ options: UnsafeMutablePointer<rs_icon_options>?) -> rs_status {
    apiCall { () throws(APIFailure) in
        guard let options else { throw .null("options") }
        options.pointee = rs_icon_options(size: UInt32(MemoryLayout<rs_icon_options>.size), pixels: 96,
                                          style: RS_STYLE_LIGHT, left_hand_traffic: 0, background_rgba: 0)
    }
}

@implementation @c
public func rs_maneuver_icon_rgba(_ maneuver: UnsafePointer<CChar>?, _ options: UnsafePointer<rs_icon_options>?,
                                  _ out: UnsafeMutablePointer<UInt8>?, _ stride: Int, _ outSize: Int) -> rs_status
{
    apiCall { () throws(APIFailure) in
        guard let maneuver else { throw .null("maneuver") }
        guard let options else { throw .null("options") }
        var o = rs_icon_options()
        _ = rs_icon_options_init(&o)
        let given = options.pointee.size
        guard given >= 8 else { throw APIFailure(RS_E_INVALID_ARGUMENT, "options->size \(given): call rs_icon_options_init") }
        withUnsafeMutableBytes(of: &o) { dst in
            let n = min(Int(given), MemoryLayout<rs_icon_options>.size)
            dst.copyMemory(from: UnsafeRawBufferPointer(start: options, count: n))
        }
        let name = String(cString: maneuver)
        guard let m = Maneuver(rawValue: name) else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "unknown maneuver '\(name)' (the names of rs_route_step.maneuver)")
        }
        guard o.pixels >= 4, o.pixels <= 16384 else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "icon size \(o.pixels) pixels: 4 .. 16384")
        }
        guard o.style == RS_STYLE_LIGHT || o.style == RS_STYLE_DARK else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "style \(o.style): RS_STYLE_LIGHT or RS_STYLE_DARK")
        }
        let side = Double(o.pixels)
        let buffer = try checkBuffer(out, stride: stride, size: outSize, width: Int(o.pixels), height: Int(o.pixels))
        var style: ManeuverIconStyle = o.style == RS_STYLE_DARK ? .dark : .light
        if o.background_rgba != 0 { style.background = RenderColor(rgba: o.background_rgba) }
        let canvas = try bridging { () throws(RoadSnapError) in try native { () throws(NativeFailure) in
            try RenderCanvas(kind: .raster, width: side, height: side)
        } }
        ManeuverIcons.draw(m, side: o.left_hand_traffic != 0 ? .left : .right, size: side, style: style, on: canvas)
        try bridging { () throws(RoadSnapError) in try native { () throws(NativeFailure) in
            try canvas.rgba(into: buffer, stride: stride)
        } }
    }
}
