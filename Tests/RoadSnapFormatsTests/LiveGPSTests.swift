import Foundation
import RoadSnapCore
import RoadSnapFormats
import Synchronization
import Testing

/// Serialized: two tests each start gpsfake and a gpsd; run side by side in a full run on a loaded 2-core machine
/// they once both exceeded their minute.
@Suite(.serialized) struct LiveGPSTests {
    /// The drive as NMEA 0183 (made from `drive` by `Fixtures/gpsd/make_nmea.py`).
    static let nmeaLog = FixturePaths.fixture("gpsd/newson-krumm-bellevue.nmea")
    static let drive = FixturePaths.sample("newson-krumm-bellevue.csv")

    @Test func parsesGPSDReports() throws {
        let tpv = #"{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2009-01-17T20:46:04.000Z","ept":0.005,"lat":47.577133333,"lon":-122.1136,"altHAE":41.5,"track":165.8,"speed":15.294,"eph":19.0}"#
        let fix = try #require(GPSDClient.fix(fromReport: tpv))
        #expect(fix.time == 1_232_225_164)
        #expect(fix.coordinate.latitude == 47.577133333)
        #expect(fix.course == 165.8)
        #expect(fix.speed == 15.294)
        #expect(fix.altitude == 41.5)
        #expect(fix.horizontalAccuracy == 19)
        // No fix yet, other classes, and 2D fixes without altitude.
        #expect(GPSDClient.fix(fromReport: #"{"class":"TPV","mode":1,"time":"2009-01-17T20:46:04.000Z"}"#) == nil)
        #expect(GPSDClient.fix(fromReport: #"{"class":"SKY","satellites":[]}"#) == nil)
        #expect(GPSDClient.fix(fromReport: "not json") == nil)
        let twoD = try #require(GPSDClient.fix(fromReport: #"{"class":"TPV","mode":2,"lat":1.5,"lon":2.5,"alt":9}"#))
        #expect(twoD.altitude == nil)
        #expect(twoD.time == nil)
        #expect(try GPSDClient.endpoint("127.0.0.1:2948") == ("127.0.0.1", 2948))
        #expect(try GPSDClient.endpoint("gps.local") == ("gps.local", 2947))
        #expect(throws: RoadSnapError.self) { try GPSDClient.endpoint("host:notaport") }
    }

    @Test func trafficFeedFormatAndErrors() throws {
        let feed = try TrafficFeedReader.parse("way_id,speed_kmh\n# comment\n4402349,22.5\n\n123;40\n", name: "t.csv")
        #expect(feed.speedsKmh == [4_402_349: 22.5, 123: 40])
        for bad in ["way_id,speed_kmh\n12,fast\n", "1\n", "x1,2\n3,4\nabc,5\n", "5,-1\n"] {
            #expect(throws: RoadSnapError.self) { try TrafficFeedReader.parse(bad, name: "bad.csv") }
        }
        do {
            _ = try TrafficFeedReader.parse("way_id,speed_kmh\n12,fast\n", name: "bad.csv")
        } catch {
            #expect(error.description.contains("bad.csv:2"))
        }
        #expect(throws: RoadSnapError.self) { try TrafficFeedReader.read(path: "/nonexistent/feed.csv") }
    }

    @Test func replayKeepsOrderAndPace() throws {
        let track = try TrackReader.read(path: Self.drive)
        let fast = try TrackReplay(track: track, speedup: .infinity)
        var n = 0
        while let fix = try fast.nextFix() {
            #expect(fix == track.fixes[n])
            n += 1
        }
        #expect(n == track.fixes.count)
        // 11 fixes 1 s apart at 50x: each fix is due 1/50 s of the replay's clock after the one before, whatever
        // the time spent between calls (here 5 ms of "work" per fix on a clock the test advances).
        let short = Track(name: "short", fixes: Array(track.fixes.prefix(11)))
        let clock = Mutex<(now: Double, sleeps: [Double], handedOut: [Double])>((100, [], []))
        let pacer = TrackReplay.Pacer(now: { clock.withLock { $0.now } },
                                      sleep: { s in clock.withLock { $0.sleeps.append(s); $0.now += s } })
        let paced = try TrackReplay(track: short, speedup: 50, pacer: pacer)
        while try paced.nextFix() != nil {
            clock.withLock { $0.handedOut.append($0.now); $0.now += 0.005 }
        }
        let (sleeps, handedOut) = clock.withLock { ($0.sleeps, $0.handedOut) }
        #expect(handedOut.count == 11)
        for (k, t) in handedOut.enumerated() {
            let recorded = short.fixes[k].time! - short.fixes[0].time!
            #expect(abs(t - (100 + recorded / 50)) < 1e-9, "fix \(k) handed out at \(t)")
        }
        #expect(sleeps.count == 10 && sleeps.allSatisfy { abs($0 - (0.02 - 0.005)) < 1e-9 }, "\(sleeps)")
        #expect(throws: RoadSnapError.self) { try TrackReplay(track: short, speedup: 0) }
    }

    /// A free TCP port on the loopback interface.
    static func freePort() throws -> UInt16 {
        let (fd, port) = try bindLoopback(listening: false)
        close(fd)
        return port
    }

    /// A TCP socket bound to a free port of the loopback interface (listening, if asked); returns it and its port.
    static func bindLoopback(listening: Bool) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
        }
        guard bound == 0, !listening || listen(fd, 1) == 0 else {
            close(fd)
            throw RoadSnapError.internalError(listening ? "cannot listen" : "cannot bind a free port")
        }
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return (fd, UInt16(bigEndian: addr.sin_port))
    }

    /// A TCP listener on the loopback that answers its first client with `reply` (after reading what the client
    /// sends first) and closes: a service that is not gpsd, or a gpsd that reports an error. Returns its port.
    static func serveOnce(_ reply: String) throws -> UInt16 {
        let (fd, port) = try bindLoopback(listening: true)
        Thread.detachNewThread {
            let client = accept(fd, nil, nil)
            if client >= 0 {
                var request = [UInt8](repeating: 0, count: 256)
                _ = recv(client, &request, request.count, 0)
                let bytes = Array(reply.utf8)
                _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(client)
            }
            close(fd)
        }
        return port
    }

    /// The gpsd client's faults say what to fix: nothing listening, a port that is not gpsd (an HTTP server's
    /// answer), gpsd's own ERROR report, each with the daemon's address and, for a bad message, its line.
    @Test func gpsdFaultsNameTheDaemonAndTheLine() throws {
        let closedPort = try Self.freePort()
        let refused = GPSDClient(host: "127.0.0.1", port: closedPort, readTimeout: 5)
        #expect(throws: RoadSnapError.self) { try refused.nextFix() }
        do {
            _ = try refused.nextFix()
        } catch {
            guard case let .gpsd(endpoint, line, reason) = error else { Issue.record("\(error)"); return }
            #expect(endpoint == "127.0.0.1:\(closedPort)")
            #expect(line == nil)
            #expect(reason.contains("cannot connect") && reason.contains("--gpsd HOST:PORT"))
            #expect(error.description.hasPrefix("gpsd at 127.0.0.1:\(closedPort): cannot connect"))
        }

        let http = GPSDClient(host: "127.0.0.1", port: try Self.serveOnce("HTTP/1.1 400 Bad Request\r\nServer: x\r\n\r\n"),
                              readTimeout: 5)
        do {
            _ = try http.nextFix()
            Issue.record("an HTTP server's answer was taken for gpsd")
        } catch {
            guard case let .gpsd(_, line, reason) = error else { Issue.record("\(error)"); return }
            #expect(line == 1)
            #expect(reason.contains("not a gpsd JSON report") && reason.contains("HTTP/1.1 400"))
        }

        let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#
        let refusing = GPSDClient(host: "127.0.0.1", port: try Self.serveOnce(
            version + "\r\n" + #"{"class":"ERROR","message":"Can't open /dev/ttyUSB0."}"# + "\r\n"), readTimeout: 5)
        do {
            _ = try refusing.nextFix()
            Issue.record("gpsd's ERROR report was ignored")
        } catch {
            #expect(error == .gpsd(endpoint: refusing.endpoint, line: 2, reason: "gpsd reported an error: Can't open /dev/ttyUSB0."))
        }

        // A JSON line without a class, mid-stream.
        let odd = GPSDClient(host: "127.0.0.1", port: try Self.serveOnce(version + "\n" + #"{"lat":1}"# + "\n"), readTimeout: 5)
        do {
            _ = try odd.nextFix()
            Issue.record("a report without a class was accepted")
        } catch {
            guard case let .gpsd(_, line, _) = error else { Issue.record("\(error)"); return }
            #expect(line == 2)
        }
    }

    /// Starts Debian's gpsfake (and the gpsd it runs) replaying the drive's NMEA log on `port`; fails when it cannot.
    static func startGpsfake(port: UInt16) throws -> Process {
        let gpsfake = "/usr/bin/gpsfake"
        #expect(FileManager.default.isExecutableFile(atPath: gpsfake), "gpsfake missing: install Debian's gpsd-clients (make deps)")
        // Foundation starts the child as its own process group leader, so gpsfake and the gpsd it starts can be
        // stopped together through the group.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gpsfake)
        process.arguments = ["-1", "-q", "-c", "0.01", "-P", String(port), nmeaLog]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Connects `client`, retrying for up to 15 s while gpsfake starts its gpsd.
    static func connect(_ client: GPSDClient) -> Bool {
        for _ in 0..<150 {
            if (try? client.connect()) != nil { return true }
            usleep(100_000)
        }
        return false
    }

    static func stop(_ process: Process) {
        kill(-process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// `roadsnap navigate --gpsd` on the same live feed: it routes from the first fix gpsd reports, follows the
    /// drive and ends at the arrival.
    @Test(.timeLimit(.minutes(1))) func navigateCommandFollowsAGpsdFeedToArrival() throws {
        let port = try Self.freePort()
        let process = try Self.startGpsfake(port: port)
        defer { Self.stop(process) }
        // Wait until gpsd accepts connections.
        let probe = GPSDClient(host: "127.0.0.1", port: port, readTimeout: 5)
        let up = Self.connect(probe)
        probe.close()
        try #require(up, "gpsd started by gpsfake did not accept connections on port \(port)")
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("roadsnap").path
        let run = Process()
        run.executableURL = URL(fileURLWithPath: binary)
        // Fix 400 of the drive (20:52:05 UTC), well after the fixes gpsd skips while it starts.
        run.arguments = ["navigate", "--map", FixturePaths.sample("bellevue-issue147.osm.gz"), "--gpsd",
                         "127.0.0.1:\(port)", "--to", "47.57043333,-122.1329167"]
        let out = Pipe()
        run.standardOutput = out
        run.standardError = FileHandle.nullDevice
        try run.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        run.waitUntilExit()
        #expect(run.terminationStatus == 0)
        let events = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        let names = events.compactMap { $0["event"] as? String }
        #expect(names.last(where: { $0 == "didArriveAtWaypoint" }) != nil)
        #expect(names.filter { $0 == "didUpdateLocation" }.count > 50)
        #expect(events.contains { $0["event"] as? String == "routeStatus" && $0["status"] as? String == "ok" })
    }

    /// Debian's gpsd fed by gpsfake with the NMEA log of the real drive; the client must read the drive back.
    /// gpsd 3.22 applies GPS week-rollover compensation to dates before its release, so the 2009 times come back
    /// exactly 1024 weeks later; positions are unchanged.
    @Test(.timeLimit(.minutes(1))) func readsARealDriveFromGpsdFedByGpsfake() throws {
        let port = try Self.freePort()
        let process = try Self.startGpsfake(port: port)
        defer { Self.stop(process) }
        let client = GPSDClient(host: "127.0.0.1", port: port, readTimeout: 20)
        let connected = Self.connect(client)
        try #require(connected, "could not connect to the gpsd started by gpsfake on port \(port)")
        let csv = try TrackReader.read(path: Self.drive)
        var byTime: [Double: Int] = [:]
        for (i, f) in csv.fixes.enumerated() { if let t = f.time { byTime[t] = i } }
        let rollover = 1024.0 * 7 * 86400
        var received = 0, untimed = 0
        var lastIndex = -1
        while received < 300, let fix = try client.nextFix() {
            // gpsd reports a cycle's GGA position before the RMC that dates it; those reports carry no time.
            guard let t = fix.time else {
                untimed += 1
                continue
            }
            let index = try #require(byTime[t - rollover], "gpsd reported a time not in the drive: \(t)")
            let expected = csv.fixes[index]
            #expect(abs(fix.coordinate.latitude - expected.coordinate.latitude) < 1e-6)
            #expect(abs(fix.coordinate.longitude - expected.coordinate.longitude) < 1e-6)
            #expect(index > lastIndex)
            #expect(fix.speed != nil && fix.course != nil)
            lastIndex = index
            received += 1
        }
        #expect(received == 300)
        #expect(untimed < 30)
    }
}
