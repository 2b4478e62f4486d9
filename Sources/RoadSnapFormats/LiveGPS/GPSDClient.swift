import RoadSnapCore

#if canImport(Glibc)
import Glibc
#endif

/// A source of raw fixes for the navigation session: live (gpsd) or recorded (a track replayed in time).
public protocol RawFixSource: AnyObject {
    /// The next fix; nil at the end of the input. Blocks until one is available.
    func nextFix() throws(RoadSnapError) -> Fix?
}

/// A client of a gpsd daemon over its JSON protocol on TCP (default 127.0.0.1:2947): sends `?WATCH` and turns each
/// `TPV` report with a 2D or 3D fix into a `Fix` (time, lat, lon, alt, track, speed, horizontal error estimate).
public final class GPSDClient: RawFixSource {
    public let host: String
    public let port: UInt16
    private var socket: Int32 = -1
    private var buffer: [UInt8] = []
    private var lastFix: Fix?
    /// Seconds to wait for data before giving up.
    public var readTimeout: Double

    public static let defaultPort: UInt16 = 2947

    public init(host: String = "127.0.0.1", port: UInt16 = GPSDClient.defaultPort, readTimeout: Double = 30) {
        self.host = host
        self.port = port
        self.readTimeout = readTimeout
    }

    deinit { close() }

    /// Parses `HOST:PORT` (or `HOST`, or `:PORT`).
    public static func endpoint(_ text: String) throws(RoadSnapError) -> (host: String, port: UInt16) {
        guard let colon = text.lastIndex(of: ":") else { return (text.isEmpty ? "127.0.0.1" : text, defaultPort) }
        let host = String(text[..<colon])
        guard let port = UInt16(text[text.index(after: colon)...]), port > 0 else {
            throw .invalidArgument("--gpsd expects HOST:PORT, got '\(text)'")
        }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    /// Connects and asks gpsd to stream JSON reports.
    public func connect() throws(RoadSnapError) {
        close()
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            throw .unreadableFile(path: "gpsd://\(host):\(port)", reason: "cannot resolve host: \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(result) }
        var lastError: Int32 = 0
        var info: UnsafeMutablePointer<addrinfo>? = first
        while let ai = info {
            let fd = Glibc.socket(ai.pointee.ai_family, ai.pointee.ai_socktype, ai.pointee.ai_protocol)
            if fd >= 0 {
                if Glibc.connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 {
                    socket = fd
                    break
                }
                lastError = errno
                Glibc.close(fd)
            } else {
                lastError = errno
            }
            info = ai.pointee.ai_next
        }
        guard socket >= 0 else {
            throw .unreadableFile(path: "gpsd://\(host):\(port)",
                                  reason: "cannot connect (is gpsd running?): \(String(cString: strerror(lastError)))")
        }
        try send(#"?WATCH={"enable":true,"json":true};"# + "\n")
    }

    public func close() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
        buffer.removeAll()
    }

    private func send(_ text: String) throws(RoadSnapError) {
        var bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.send(socket, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 {
                throw .unreadableFile(path: "gpsd://\(host):\(port)", reason: "send failed: \(String(cString: strerror(errno)))")
            }
            sent += n
        }
    }

    /// The next line gpsd sent, nil when it closed the connection.
    func nextLine() throws(RoadSnapError) -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            guard socket >= 0 else { return nil }
            var pfd = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(readTimeout * 1000))
            if ready == 0 {
                throw .unreadableFile(path: "gpsd://\(host):\(port)", reason: "no data for \(readTimeout) s")
            }
            if ready < 0 {
                if errno == EINTR { continue }
                throw .unreadableFile(path: "gpsd://\(host):\(port)", reason: "poll failed: \(String(cString: strerror(errno)))")
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadableFile(path: "gpsd://\(host):\(port)", reason: "read failed: \(String(cString: strerror(errno)))")
            }
            if n == 0 {
                close()
                if buffer.isEmpty { return nil }
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                return line
            }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Blocks until gpsd reports a new fix; nil when gpsd closes the connection.
    public func nextFix() throws(RoadSnapError) -> Fix? {
        if socket < 0, buffer.isEmpty { try connect() }
        while let line = try nextLine() {
            guard let fix = GPSDClient.fix(fromReport: line) else { continue }
            // gpsd may repeat a cycle's report as more sentences of it arrive: pass each fix once.
            if let last = lastFix, last.time == fix.time, last.coordinate == fix.coordinate { continue }
            lastFix = fix
            return fix
        }
        return nil
    }

    /// The fix of one gpsd JSON report: a `TPV` with mode 2 or 3 and a position; nil for anything else
    /// (malformed lines included).
    public static func fix(fromReport line: String) -> Fix? {
        guard line.contains("\"TPV\""), let doc = try? JSONNodes(text: line), doc.error == nil else { return nil }
        return withExtendedLifetime(doc) { () -> Fix? in
            guard doc.kind(0) == .object, JSONInput.isString(doc, doc.member(0, "class"), "TPV"),
                  let modeValue = doc.member(0, "mode").flatMap({ doc.number($0) }), modeValue.isFinite,
                  abs(modeValue) < 1e9, Int(modeValue) >= 2,
                  let lat = doc.member(0, "lat").flatMap({ doc.number($0) }),
                  let lon = doc.member(0, "lon").flatMap({ doc.number($0) }),
                  let coordinate = try? GeoCoordinate(latitude: lat, longitude: lon)
            else { return nil }
            let mode = Int(modeValue)
            func number(_ key: StaticString) -> Double? {
                guard let v = doc.member(0, key).flatMap({ doc.number($0) }), v.isFinite else { return nil }
                return v
            }
            let time = doc.member(0, "time").flatMap { doc.bytes($0) }.flatMap { TrackTime.parseISO8601(bytes: $0.buffer) }
            let altitude = mode == 3 ? (number("altHAE") ?? number("alt")) : nil
            var accuracy = number("eph")
            if accuracy == nil, let x = number("epx"), let y = number("epy") { accuracy = max(x, y) }
            return Fix(coordinate: coordinate, time: time, course: number("track"), speed: number("speed"),
                       altitude: altitude, horizontalAccuracy: accuracy)
        }
    }
}
