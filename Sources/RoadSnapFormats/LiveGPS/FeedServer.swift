import RoadSnapCore

#if canImport(Glibc)
import Glibc
#endif

/// Serves a JSON-lines event feed (`roadsnap navigate --serve`) to any number of consumers over TCP or a Unix
/// socket. Consumers may connect and leave at any time: a new one first gets `{"event":"feedJoined",
/// "state_lines":N}`, then the current state (the latest line of each event kind, in the order they were
/// published), then every line published after it, the same lines as every other consumer.
///
/// No thread of its own: pending connections are taken in on each `publish` (the navigator publishes at least
/// once per fix) and on `acceptPending()`. Sends never block the drive: a consumer's unsent bytes wait in its
/// buffer, and a consumer more than `maximumBacklogBytes` behind, or whose connection failed, is dropped.
public final class FeedServer: @unchecked Sendable {
    /// The endpoint as given (`HOST:PORT` or a socket path).
    public let endpoint: String
    /// The TCP port listened on (the one the system chose for port 0); nil for a Unix socket.
    public private(set) var port: UInt16?
    /// Bytes a consumer may fall behind before it is dropped.
    public var maximumBacklogBytes = 4 << 20

    private var listener: Int32 = -1
    private var unixPath: String?
    private var consumers: [(fd: Int32, pending: [UInt8])] = []
    private var state: [String: (order: Int, line: String)] = [:]
    private var published = 0
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    /// Listens on `HOST:PORT` (TCP; `:PORT` is the loopback, port 0 lets the system choose) or, when the endpoint
    /// contains a `/`, on a Unix socket at that path (a stale socket file there is replaced).
    public init(endpoint: String) throws(RoadSnapError) {
        self.endpoint = endpoint
        pthread_mutex_init(lock, nil)
        if endpoint.contains("/") {
            try listenUnix(endpoint)
        } else {
            try listenTCP(endpoint)
        }
    }

    deinit {
        close()
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Consumers connected now.
    public var consumerCount: Int {
        pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }
        return consumers.count
    }

    /// Sends `line` (no trailing newline) to every consumer and keeps it as the current state of `kind` (nil: a
    /// one-off line, not part of the state a new consumer gets).
    public func publish(_ line: String, kind: String?) {
        pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }
        acceptLocked()
        published += 1
        if let kind { state[kind] = (published, line) }
        let bytes = Array((line + "\n").utf8)
        for i in consumers.indices { consumers[i].pending.append(contentsOf: bytes) }
        flushLocked()
    }

    /// Takes in consumers waiting to connect (each gets the current state) and sends what is pending.
    public func acceptPending() {
        pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }
        acceptLocked()
        flushLocked()
    }

    /// Stops listening and disconnects every consumer (after trying once more to send what they are owed).
    public func close() {
        pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }
        flushLocked()
        for c in consumers { Glibc.close(c.fd) }
        consumers.removeAll()
        if listener >= 0 { Glibc.close(listener) }
        listener = -1
        if let unixPath { unlink(unixPath) }
        unixPath = nil
    }

    // MARK: internals (lock held)

    private func acceptLocked() {
        guard listener >= 0 else { return }
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return  // EAGAIN: nobody waiting (the listener is non-blocking)
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var on: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            let lines = state.values.sorted { $0.order < $1.order }.map(\.line)
            var pending = Array(#"{"event":"feedJoined","state_lines":\#(lines.count)}"#.utf8) + [10]
            for l in lines { pending.append(contentsOf: l.utf8); pending.append(10) }
            consumers.append((fd, pending))
        }
    }

    private func flushLocked() {
        var dropped: [Int] = []
        for i in consumers.indices {
            var sent = 0
            let count = consumers[i].pending.count
            var failed = false
            while sent < count {
                let n = consumers[i].pending.withUnsafeBytes {
                    send(consumers[i].fd, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if n > 0 { sent += n; continue }
                if n < 0, errno == EINTR { continue }
                if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { break }
                failed = true
                break
            }
            consumers[i].pending.removeFirst(sent)
            if failed || consumers[i].pending.count > maximumBacklogBytes { dropped.append(i) }
        }
        for i in dropped.reversed() {
            Glibc.close(consumers[i].fd)
            consumers.remove(at: i)
        }
    }

    private func fail(_ what: String) -> RoadSnapError {
        .invalidArgument("--serve \(endpoint): cannot \(what): \(String(cString: strerror(errno))) "
                         + "(give a free HOST:PORT, e.g. 127.0.0.1:5555, or a socket path in a writable directory)")
    }

    private func finishListening(_ fd: Int32) throws(RoadSnapError) {
        guard listen(fd, 16) == 0 else {
            let error = fail("listen")
            Glibc.close(fd)
            throw error
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        listener = fd
    }

    private func listenTCP(_ text: String) throws(RoadSnapError) {
        guard let colon = text.lastIndex(of: ":"), let p = UInt16(text[text.index(after: colon)...]) else {
            throw .invalidArgument("--serve expects HOST:PORT or a Unix socket path, got '\(text)'")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty { host = "127.0.0.1" }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(p), &hints, &result)
        guard rc == 0, let ai = result else {
            throw .invalidArgument("--serve \(text): cannot resolve '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(result) }
        let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype, ai.pointee.ai_protocol)
        guard fd >= 0 else { throw fail("open a socket") }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 else {
            let error = fail("bind")
            Glibc.close(fd)
            throw error
        }
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        port = withUnsafePointer(to: &storage) { s -> UInt16 in
            if Int32(s.pointee.ss_family) == AF_INET6 {
                return s.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return s.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        try finishListening(fd)
    }

    private func listenUnix(_ path: String) throws(RoadSnapError) {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard bytes.count < capacity else {
            throw .invalidArgument("--serve \(path): a Unix socket path must be shorter than \(capacity) bytes")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        // Replace a stale socket (from an earlier run), never another kind of file.
        var st = stat()
        if lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw .invalidArgument("--serve \(path): exists and is not a socket (choose another path)")
            }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw fail("open a socket") }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let error = fail("bind")
            Glibc.close(fd)
            throw error
        }
        unixPath = path
        try finishListening(fd)
    }
}
