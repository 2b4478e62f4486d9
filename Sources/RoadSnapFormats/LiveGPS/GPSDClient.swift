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
    /// Lines gpsd sent on this connection so far (for the line number in errors).
    private var lineNumber = 0
    /// Seconds to wait for data before giving up.
    public var readTimeout: Double

    public static let defaultPort: UInt16 = 2947
    /// The longest line accepted from gpsd (its reports are a few hundred bytes; SKY with many satellites a few kB).
    static let maxLineBytes = 1 << 20

    /// `host:port`, as errors name the daemon.
    public var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

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
            throw .gpsd(endpoint: endpoint, line: nil,
                        reason: "cannot resolve the host name (check --gpsd HOST:PORT): \(String(cString: gai_strerror(rc)))")
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
            throw .gpsd(endpoint: endpoint, line: nil,
                        reason: "cannot connect: \(String(cString: strerror(lastError))) (is gpsd running and listening there? "
                            + "start it, e.g. `gpsd -N /dev/ttyUSB0`, or give its address with --gpsd HOST:PORT)")
        }
        lineNumber = 0
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
                throw .gpsd(endpoint: endpoint, line: nil,
                            reason: "connection lost while asking for reports: \(String(cString: strerror(errno)))")
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
                throw .gpsd(endpoint: endpoint, line: nil,
                            reason: "no data for \(readTimeout) s (is a GPS receiver attached to gpsd? `gpsmon` shows what it gets)")
            }
            if ready < 0 {
                if errno == EINTR { continue }
                throw .gpsd(endpoint: endpoint, line: nil, reason: "connection lost: \(String(cString: strerror(errno)))")
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .gpsd(endpoint: endpoint, line: nil, reason: "connection lost: \(String(cString: strerror(errno)))")
            }
            if n == 0 {
                close()
                if buffer.isEmpty { return nil }
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                return line
            }
            buffer.append(contentsOf: chunk[..<n])
            if buffer.count > Self.maxLineBytes, !buffer.contains(10) {
                let line = lineNumber + 1
                close()
                throw .gpsd(endpoint: endpoint, line: line,
                            reason: "a line longer than \(Self.maxLineBytes) bytes: not gpsd's JSON protocol (is this gpsd's port?)")
            }
        }
    }

    /// Blocks until gpsd reports a new fix; nil when gpsd closes the connection. A line that is not one of gpsd's
    /// JSON reports, or an `ERROR` report, throws `.gpsd` with its line number.
    public func nextFix() throws(RoadSnapError) -> Fix? {
        if socket < 0, buffer.isEmpty { try connect() }
        while let line = try nextLine() {
            lineNumber += 1
            switch GPSDClient.check(report: line) {
            case .report: break
            case let .error(reason):
                close()
                throw .gpsd(endpoint: endpoint, line: lineNumber, reason: reason)
            }
            guard let fix = GPSDClient.fix(fromReport: line) else { continue }
            // gpsd may repeat a cycle's report as more sentences of it arrive: pass each fix once.
            if let last = lastFix, last.time == fix.time, last.coordinate == fix.coordinate { continue }
            lastFix = fix
            return fix
        }
        return nil
    }

    /// What one line from gpsd is: a report (of any class; blank lines too), or a fault with what to fix.
    enum LineCheck: Equatable { case report, error(String) }

    /// Checks one line gpsd sent: a JSON object with a string `class` member is a report; gpsd's own `ERROR` report
    /// and anything else are faults.
    static func check(report line: String) -> LineCheck {
        if line.utf8.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { return .report }
        let excerpt = line.count > 60 ? String(line.prefix(60)) + "…" : line
        let notGpsd = LineCheck.error("not a gpsd JSON report: '\(excerpt)' (is this gpsd's port? gpsd listens on \(defaultPort))")
        guard let doc = try? JSONNodes(text: line) else { return notGpsd }
        if let error = doc.error { return .error("not a gpsd JSON report (\(JSONInput.describe(error))): '\(excerpt)'") }
        return withExtendedLifetime(doc) { () -> LineCheck in
            guard doc.kind(0) == .object, let cls = doc.member(0, "class").flatMap({ doc.string($0) }) else {
                return notGpsd
            }
            if cls == "ERROR" {
                let message = doc.member(0, "message").flatMap { doc.string($0) } ?? "no message"
                return .error("gpsd reported an error: \(message)")
            }
            return .report
        }
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
