import Foundation
@testable import RoadSnapCore
import RoadSnapFormats
import Testing

/// Publishes every navigator event as a JSON line to a feed server, as `roadsnap navigate --serve` does.
final class FeedPublisher: NavigatorListener, @unchecked Sendable {
    let server: FeedServer
    var published: [String] = []
    init(_ server: FeedServer) { self.server = server }
    func publish(_ o: JSONValue) {
        let line = NavigationEventJSON.line(o)
        published.append(line)
        server.publish(line, kind: o["event"]?.string)
    }
    func navigatorDidChangeRoute(_ n: Navigator) { publish(NavigationEventJSON.routeChanged(n)) }
    func navigator(_ n: Navigator, didUpdateRemainingTime t: Double) { publish(NavigationEventJSON.remainingTime(t)) }
    func navigator(_ n: Navigator, didUpdateRemainingDistance d: Double) { publish(NavigationEventJSON.remainingDistance(d)) }
    func navigator(_ n: Navigator, didChangeSuggestedLightingMode m: LightingMode) { publish(NavigationEventJSON.lighting(m)) }
    func navigator(_ n: Navigator, didUpdate s: SpeedAlertSeverity, speedingPercentage p: Double) {
        publish(NavigationEventJSON.severity(s, p))
    }
    func navigator(_ n: Navigator, didUpdate i: NavInfo) { publish(NavigationEventJSON.navInfo(i)) }
    func navigator(_ n: Navigator, didArriveAt w: Waypoint) { publish(NavigationEventJSON.arrived(w)) }
}

/// A consumer of the feed: a client socket read without blocking.
final class FeedConsumer {
    let fd: Int32
    var bytes: [UInt8] = []
    var closed = false

    init(port: UInt16? = nil, path: String? = nil) throws {
        if let path {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                for (i, b) in path.utf8.enumerated() { raw[i] = b }
            }
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard rc == 0 else { throw RoadSnapError.internalError("cannot connect to \(path)") }
        } else {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = (port ?? 0).bigEndian
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard rc == 0 else { throw RoadSnapError.internalError("cannot connect to port \(port ?? 0)") }
        }
    }

    deinit { close(fd) }

    /// Reads what has arrived (waiting up to `wait` seconds for the first byte).
    func drain(wait: Double = 0) {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var timeout = Int32(wait * 1000)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !closed, poll(&pfd, 1, timeout) > 0 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { closed = true; break }
            bytes.append(contentsOf: chunk[..<n])
            timeout = 0
        }
    }

    var lines: [String] { String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init) }
}

/// `roadsnap navigate --serve`: two consumers join a simulated Bellevue drive at different times; each first gets
/// the feed-joined line and the current state (the latest line of each event kind), then exactly the lines
/// published after it joined, in order, the same for both; a consumer that leaves does not disturb the others.
@Suite(.serialized) struct FeedServerTests {
    @Test func consumersJoiningMidDriveGetStateThenTheSameLines() throws {
        let server = try FeedServer(endpoint: "127.0.0.1:0")
        let port = try #require(server.port)
        let h = try Harness(map: TestData.bellevueMap, start: utc(2009, 1, 17, 20))
        let publisher = FeedPublisher(server)
        let nav = h.session.navigator
        nav.add(publisher)
        h.session.locationSimulator.simulateLocation(at: NavigationRouteChoiceTests.origin.coordinate)
        #expect(h.setDestinations([NavigationRouteChoiceTests.destination]) == .ok)
        nav.isGuidanceActive = true
        #expect(h.session.locationSimulator.simulateLocationsAlongExistingRoute())
        var consumers: [FeedConsumer] = []
        var joinedAt: [Int] = []
        var quitter: FeedConsumer? = nil
        for second in 0..<900 {
            if second == 20 || second == 75 {
                consumers.append(try FeedConsumer(port: port))
                // Taken in at the next publish; remember how many lines were out before it.
                joinedAt.append(h.onQueue { publisher.published.count })
                h.onQueue { server.acceptPending() }
            }
            if second == 40 { quitter = try FeedConsumer(port: port); h.onQueue { server.acceptPending() } }
            if second == 60 { quitter = nil }  // leaves mid-drive
            h.run(seconds: 1)
            for c in consumers { c.drain() }
            if h.onQueue({ h.recorder.arrivals.count == 1 }) { break }
        }
        #expect(h.onQueue { h.recorder.arrivals } == ["East"])
        _ = quitter
        server.close()
        for c in consumers { c.drain(wait: 1) }
        let all = h.onQueue { publisher.published }
        #expect(consumers.count == 2)
        var live: [[String]] = []
        for (c, start) in zip(consumers, joinedAt) {
            let lines = c.lines
            let header = try #require(lines.first)
            #expect(header.hasPrefix(#"{"event":"feedJoined","state_lines":"#))
            let n = try #require(Int(header.split(separator: ":").last?.dropLast() ?? ""))
            // The state: the latest line of each kind published before joining, in publishing order.
            var latest: [String: (Int, String)] = [:]
            for (i, l) in all[..<start].enumerated() {
                let kind = l.components(separatedBy: #""event":""#)[1].components(separatedBy: "\"")[0]
                latest[kind] = (i, l)
            }
            let expectedState = latest.values.sorted { $0.0 < $1.0 }.map(\.1)
            #expect(n == expectedState.count && n >= 5)
            #expect(Array(lines[1..<(n + 1)]) == expectedState)
            #expect(lines[1..<(n + 1)].contains { $0.contains("didUpdateNavInfo") })
            // Then every line published after joining, in order.
            #expect(Array(lines[(n + 1)...]) == Array(all[start...]))
            live.append(Array(lines[(n + 1)...]))
        }
        // The later consumer's live lines are the tail of the earlier one's.
        #expect(live[0].count > live[1].count && live[1].count > 10)
        #expect(Array(live[0].suffix(live[1].count)) == live[1])
        #expect(live[0].last?.contains("didArriveAtWaypoint") == true || all.last == live[0].last)
    }

    /// A Unix socket endpoint works the same; a stale socket file is replaced; a regular file is not.
    @Test func unixSocketEndpoint() throws {
        let dir = try TestData.temporaryDirectory()
        let path = dir.appendingPathComponent("feed.sock").path
        let first = try FeedServer(endpoint: path)
        first.publish(#"{"event":"a","v":1}"#, kind: "a")
        let c = try FeedConsumer(path: path)
        first.publish(#"{"event":"b","v":2}"#, kind: nil)
        first.publish(#"{"event":"a","v":3}"#, kind: "a")
        c.drain(wait: 1)
        #expect(c.lines == [#"{"event":"feedJoined","state_lines":1}"#, #"{"event":"a","v":1}"#,
                            #"{"event":"b","v":2}"#, #"{"event":"a","v":3}"#])
        #expect(first.consumerCount == 1)
        let second = try FeedServer(endpoint: path)  // the first still holds it: the file is replaced
        second.close()
        first.close()
        let file = dir.appendingPathComponent("not-a-socket").path
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        #expect(throws: RoadSnapError.self) { try FeedServer(endpoint: file) }
        #expect(throws: RoadSnapError.self) { try FeedServer(endpoint: "127.0.0.1:notaport") }
    }
}
