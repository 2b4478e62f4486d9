#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one atomic file writer of RoadSnap (outputs of every command, compiled maps), written in chunks: readers
/// never see a half-written file, and a failed write leaves the old file as it was.
///
/// What is at `path` decides how it is written:
/// - nothing or a regular file: the bytes go to a temporary file beside it (`.NAME.PID.SUFFIX.tmp`, same folder, so
///   the same file system), which `commit()` flushes (`fsync`) and renames over the path; a failure or a writer
///   dropped before `commit()` removes the temporary and the old file stays;
/// - a symbolic link: followed (its target is written by these rules, the link stays);
/// - a character device or FIFO (`/dev/stdout`, `/dev/null`, a pipe): written through in place, never renamed over
///   or truncated;
/// - a directory, block device or socket: refused.
///
/// Temporaries of a killed process (whose PID is not running) are removed from a folder the first time this process
/// writes into it. Every failure (folder not creatable, disk full, rename refused) is `.unwritableFile` naming the
/// path and the reason.
package final class AtomicFileWriter {
    /// The path as given, for messages.
    package let path: String
    /// The temporary file being written, nil when writing through a device or FIFO in place.
    package let temporaryPath: String?
    /// The file the temporary replaces (the link's target for a symbolic link).
    private let target: String
    private var fd: Int32
    /// Open until committed or abandoned (a failure abandons).
    private var isOpen = true
    /// Bytes written so far by `write(_:)`.
    package private(set) var count: UInt64 = 0

    /// Whether the output is written through in place (a device or FIFO) rather than replaced atomically.
    package var writesInPlace: Bool { temporaryPath == nil }

    /// Opens `path` for writing by the rules above. With `seekable`, outputs that cannot take `write(_:at:)` (a FIFO)
    /// are refused up front rather than failing half-way.
    package init(path: String, seekable: Bool = false) throws(NativeFailure) {
        self.path = path
        let target = try Self.resolve(path)
        self.target = target.path
        if target.inPlace {
            if seekable, target.isFIFO {
                throw .unwritableFile(path: path, reason: "is a FIFO; this file is written with its header last and "
                    + "needs a file that can seek: give a file path")
            }
            fd = open(target.path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .unwritableFile(path: path, reason: Self.errorText(errno)) }
            temporaryPath = nil
            return
        }
        let dir = Self.directoryName(target.path)
        try Self.makeDirectories(dir)
        StaleTemporaries.clean(directory: dir)
        var random = SystemRandomNumberGenerator()
        let suffix = String(random.next() as UInt64, radix: 36)
        let temp = Self.join(dir, ".\(Self.baseName(target.path)).\(getpid()).\(suffix).tmp")
        fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            throw .unwritableFile(path: path, reason: "cannot create \(temp): \(Self.errorText(errno))")
        }
        temporaryPath = temp
    }

    deinit { abandon() }

    /// Appends `bytes` (retrying partial writes and EINTR).
    package func write(_ bytes: UnsafeRawBufferPointer) throws(NativeFailure) {
        guard isOpen else { throw .unwritableFile(path: path, reason: "the writer is closed") }
        if let code = Self.writeAll(fd, bytes) { throw fail("", code) }
        count += UInt64(bytes.count)
    }

    /// Appends `bytes`.
    package func write(_ bytes: [UInt8]) throws(NativeFailure) {
        try bytes.withUnsafeBytes { b in Result { () throws(NativeFailure) in try write(b) } }.get()
    }

    /// Writes `bytes` at byte `offset` from the start (`pwrite`), e.g. a header filled in last; `count` is not
    /// changed.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(NativeFailure) {
        guard isOpen else { throw .unwritableFile(path: path, reason: "the writer is closed") }
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0, errno == EINTR { continue }
            if n <= 0 { throw fail("writing at offset \(offset): ", n < 0 ? errno : EIO) }
            done += n
        }
    }

    /// Finishes the file: flushes and renames the temporary over the target (a device or FIFO is closed). After a
    /// failure the temporary is gone and the old file is as it was.
    package func commit() throws(NativeFailure) {
        guard isOpen else { throw .unwritableFile(path: path, reason: "the writer is closed") }
        guard let temp = temporaryPath else {
            isOpen = false
            let rc = close(fd)
            fd = -1
            if rc != 0 { throw .unwritableFile(path: path, reason: "close: \(Self.errorText(errno))") }
            return
        }
        if fsync(fd) != 0 { throw fail("fsync: ", errno) }
        let rc = close(fd)
        fd = -1
        if rc != 0 { throw fail("close: ", errno) }
        if rename(temp, target) != 0 { throw fail("rename: ", errno) }
        isOpen = false
        // The rename itself is durable once the folder is flushed (best effort: some file systems refuse it).
        let dirFD = open(Self.directoryName(target), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            _ = fsync(dirFD)
            close(dirFD)
        }
    }

    /// Gives up: closes and removes the temporary (the old file stays). Dropping an uncommitted writer does this.
    package func abandon() {
        guard isOpen else { return }
        isOpen = false
        if fd >= 0 { close(fd) }
        fd = -1
        if let temp = temporaryPath { unlink(temp) }
    }

    /// Writes `bytes` to `path` in one go (open, write, commit).
    package static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws(NativeFailure) {
        let writer = try AtomicFileWriter(path: path)
        try writer.write(bytes)
        try writer.commit()
    }

    /// A failure: the temporary is removed at once (the old file stays), the error names the path.
    private func fail(_ what: String, _ code: Int32) -> NativeFailure {
        abandon()
        return .unwritableFile(path: path, reason: "\(what)\(Self.errorText(code))")
    }

    /// Where to write and how: the path itself, a symbolic link's final target, or in place for a device or FIFO.
    private static func resolve(_ path: String) throws(NativeFailure) -> (path: String, inPlace: Bool, isFIFO: Bool) {
        guard !path.isEmpty else { throw .unwritableFile(path: path, reason: "the path is empty") }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return (path, false, false) }
            throw .unwritableFile(path: path, reason: errorText(code))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return (path, false, false)
        case S_IFLNK:
            guard let resolved = realpath(path, nil) else {
                throw .unwritableFile(path: path, reason: "a symbolic link whose target cannot be resolved "
                    + "(\(errorText(errno))); remove it or give another path")
            }
            let target = String(cString: resolved)
            free(resolved)
            var targetInfo = stat()
            if lstat(target, &targetInfo) == 0, (targetInfo.st_mode & S_IFMT) == S_IFLNK {
                throw .unwritableFile(path: path, reason: "the symbolic link does not resolve")
            }
            return try resolve(target)
        case S_IFCHR: return (path, true, false)
        case S_IFIFO: return (path, true, true)
        case S_IFDIR: throw .unwritableFile(path: path, reason: "is a directory; give a file path")
        case S_IFBLK: throw .unwritableFile(path: path, reason: "is a block device; refusing to write to it")
        default:
            throw .unwritableFile(path: path, reason: "is not a regular file, device or FIFO; refusing to replace it")
        }
    }

    /// Writes all of `bytes` to `fd`, retrying partial writes and EINTR; the errno of a failure, nil on success.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var written = 0
        while written < bytes.count {
            let n = posixWrite(fd, bytes.baseAddress! + written, min(bytes.count - written, 1 << 30))
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            written += n
        }
        return nil
    }

    /// The text of an `errno` value (strerror).
    package static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// `a/b` (one slash).
    package static func join(_ a: String, _ b: String) -> String { a.hasSuffix("/") ? a + b : a + "/" + b }

    /// Creates `path` and its missing parents (like `mkdir -p`).
    package static func makeDirectories(_ path: String) throws(NativeFailure) {
        var info = stat()
        if path.isEmpty || (stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR) { return }
        let parent = directoryName(path)
        if parent != path { try makeDirectories(parent) }
        if mkdir(path, 0o777) != 0, errno != EEXIST {
            throw .unwritableFile(path: path, reason: "cannot create the directory: \(errorText(errno))")
        }
    }

    /// The folder part of a path ("." for a bare name).
    package static func directoryName(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return "." }
        if slash == p.startIndex { return "/" }
        return String(p[..<slash])
    }

    /// The last component of a path.
    package static func baseName(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return String(p) }
        return String(p[p.index(after: slash)...])
    }
}

/// Removes the temporary files `AtomicFileWriter` left behind in a folder when a process was killed mid-write
/// (`.NAME.PID.SUFFIX.tmp` whose PID is no longer running), once per folder per process.
package enum StaleTemporaries {
    private static let cleaned = Locked<Set<String>>([])

    /// Cleans `directory` (the first call for it in this process; later calls return at once).
    package static func clean(directory: String) {
        let first = cleaned.withLock { $0.insert(directory).inserted }
        guard first, let dir = opendir(directory) else { return }
        var stale: [String] = []
        while let entry = readdir(dir) {
            let name = entryName(entry)
            if let pid = ownerPID(ofTemporary: name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH {
                stale.append(name)
            }
        }
        closedir(dir)
        for name in stale { unlink(AtomicFileWriter.join(directory, name)) }
    }

    /// The PID in an `AtomicFileWriter` temporary's name (`.NAME.PID.SUFFIX.tmp`, SUFFIX base 36), nil for other
    /// names.
    package static func ownerPID(ofTemporary name: String) -> pid_t? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        let parts = name.dropFirst().dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, !parts[parts.count - 3].isEmpty,
              parts[parts.count - 1].allSatisfy({ $0.isASCII && ($0.isNumber || $0.isLowercase) }),
              !parts[parts.count - 1].isEmpty,
              let pid = pid_t(parts[parts.count - 2]), pid > 0
        else { return nil }
        return pid
    }

    /// The name of a directory entry, read in place: the record `readdir` returns may be shorter than
    /// `MemoryLayout<dirent>.size`, so copying `d_name` (a 256-byte tuple) can read past the end of the buffer
    /// (found by AddressSanitizer under the C API fuzzer, issue 16).
    package static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
        return String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
    }
}

// Outside the type, whose own `write` would shadow the POSIX call.
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
