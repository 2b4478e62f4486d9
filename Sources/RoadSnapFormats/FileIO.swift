#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import RoadSnapCore

/// Files through POSIX calls (`open`, `read`, `write`, `fsync`, `rename`): no Foundation.
public enum FileIO {
    /// The text of `errno` (strerror).
    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The whole content of a file; the path `-` reads standard input to its end. Errors name the path.
    public static func read(path: String) throws(RoadSnapError) -> [UInt8] {
        if path == "-" { return try readAll(descriptor: 0, path: "-") }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw .unreadableFile(path: path, reason: code == ENOENT ? "no such file" : errorText(code))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadableFile(path: path, reason: errorText(errno)) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .unreadableFile(path: path, reason: "is a directory") }
        return try readAll(descriptor: fd, path: path, sizeHint: Int(info.st_size))
    }

    /// Throws `.unreadableFile` (an I/O error, not a format error) when `path` is empty, missing, unreadable or a
    /// directory; formats are judged only after this.
    public static func checkReadable(_ path: String) throws(RoadSnapError) {
        guard !path.isEmpty else { throw .unreadableFile(path: path, reason: "the path is empty") }
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            throw .unreadableFile(path: path, reason: code == ENOENT ? "no such file" : errorText(code))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .unreadableFile(path: path, reason: "is a directory") }
        guard access(path, R_OK) == 0 else { throw .unreadableFile(path: path, reason: errorText(errno)) }
    }

    /// Reads `fd` to its end.
    static func readAll(descriptor fd: Int32, path: String, sizeHint: Int = 0) throws(RoadSnapError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(sizeHint + 1)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadableFile(path: path, reason: errorText(errno))
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<n])
        }
    }

    /// Whether `path` names a directory (following links).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The regular files under `directory` (recursively, following no links to directories), skipping names that
    /// start with a dot (and all below hidden directories), as paths relative to `directory`, sorted.
    public static func regularFiles(under directory: String) throws(RoadSnapError) -> [String] {
        var found: [String] = []
        try walk(directory, relative: "", into: &found)
        return found.sorted()
    }

    private static func walk(_ root: String, relative: String, into found: inout [String]) throws(RoadSnapError) {
        let dirPath = relative.isEmpty ? root : join(root, relative)
        guard let dir = opendir(dirPath) else {
            throw .unreadableFile(path: dirPath, reason: "the directory cannot be listed: \(errorText(errno))")
        }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = entryName(entry)
            if name == "." || name == ".." || name.hasPrefix(".") { continue }
            names.append(name)
        }
        closedir(dir)
        for name in names {
            let rel = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard lstat(join(root, rel), &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: try walk(root, relative: rel, into: &found)
            case S_IFREG: found.append(rel)
            case S_IFLNK:
                // A link to a regular file counts as one (as FileManager's enumerator did); to a directory, not.
                var target = stat()
                if stat(join(root, rel), &target) == 0, (target.st_mode & S_IFMT) == S_IFREG { found.append(rel) }
            default: continue
            }
        }
    }

    /// Writes all of `bytes` to `fd`, retrying partial writes and EINTR; the errno of a failure, nil on success.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var written = 0
        while written < bytes.count {
            let n = posixWrite(fd, bytes.baseAddress! + written, bytes.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            written += n
        }
        return nil
    }

    /// Writes `text` to standard output in full; a failure (disk full, closed pipe) is an error.
    public static func writeStandardOutput(_ text: String) throws(RoadSnapError) {
        var text = text
        let code = text.withUTF8 { FileIO.writeAll(1, UnsafeRawBufferPointer($0)) }
        if let code { throw .unwritableFile(path: "standard output", reason: errorText(code)) }
    }

    /// The name of a directory entry, read in place: the record `readdir` returns may be shorter than
    /// `MemoryLayout<dirent>.size`, so copying `d_name` (a 256-byte tuple) can read past the end of the buffer
    /// (found by AddressSanitizer under the C API fuzzer, issue 16).
    static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
        return String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
    }

    static func join(_ a: String, _ b: String) -> String { a.hasSuffix("/") ? a + b : a + "/" + b }

    /// Creates `path` and its missing parents (like `mkdir -p`).
    static func makeDirectories(_ path: String) throws(RoadSnapError) {
        if path.isEmpty || isDirectory(path) { return }
        let parent = directoryName(path)
        if parent != path { try makeDirectories(parent) }
        if mkdir(path, 0o777) != 0, errno != EEXIST {
            throw .unwritableFile(path: path, reason: "cannot create the directory: \(errorText(errno))")
        }
    }

    /// The folder part of a path ("." for a bare name).
    static func directoryName(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return "." }
        if slash == p.startIndex { return "/" }
        return String(p[..<slash])
    }

    /// The last component of a path.
    static func baseName(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return String(p) }
        return String(p[p.index(after: slash)...])
    }
}

/// Writes files atomically: into a temporary file beside the target (same folder, so the same file system), flushed
/// with `fsync`, then renamed over the target, so readers never see a half-written output. Every failure (folder
/// not creatable, disk full, rename refused) is an error naming the path; the temporary file is removed.
public enum AtomicFile {
    public static func write(_ text: String, to path: String) throws(RoadSnapError) {
        var text = text
        try text.withUTF8 { buffer in
            Result { () throws(RoadSnapError) in try write(UnsafeRawBufferPointer(buffer), to: path) }
        }.get()
    }

    public static func write(_ bytes: [UInt8], to path: String) throws(RoadSnapError) {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(RoadSnapError) in try write(buffer, to: path) }
        }.get()
    }

    /// What is at `path` decides how it is written: nothing or a regular file is replaced atomically; a symbolic
    /// link is followed (its target is replaced, the link stays); a character device or FIFO (`/dev/stdout`, a pipe)
    /// is written through in place, never renamed over; a directory, block device or socket is refused.
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws(RoadSnapError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return try replace(bytes, at: path) }
            throw .unwritableFile(path: path, reason: FileIO.errorText(code))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: try replace(bytes, at: path)
        case S_IFLNK:
            guard let resolved = realpath(path, nil) else {
                throw .unwritableFile(path: path, reason: "a symbolic link whose target cannot be resolved "
                    + "(\(FileIO.errorText(errno))); remove it or give another path")
            }
            let target = String(cString: resolved)
            free(resolved)
            var targetInfo = stat()
            if lstat(target, &targetInfo) == 0, (targetInfo.st_mode & S_IFMT) == S_IFLNK {
                throw .unwritableFile(path: path, reason: "the symbolic link does not resolve")
            }
            try write(bytes, to: target)
        case S_IFCHR, S_IFIFO: try writeThrough(bytes, to: path)
        case S_IFDIR: throw .unwritableFile(path: path, reason: "is a directory; give a file path")
        case S_IFBLK: throw .unwritableFile(path: path, reason: "is a block device; refusing to write to it")
        default: throw .unwritableFile(path: path, reason: "is not a regular file, device or FIFO; refusing to replace it")
        }
    }

    /// Writes into an existing device or FIFO in place (no temporary file, no rename, no truncation).
    static func writeThrough(_ bytes: UnsafeRawBufferPointer, to path: String) throws(RoadSnapError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unwritableFile(path: path, reason: FileIO.errorText(errno)) }
        if let code = FileIO.writeAll(fd, bytes) {
            close(fd)
            throw .unwritableFile(path: path, reason: FileIO.errorText(code))
        }
        if close(fd) != 0 { throw .unwritableFile(path: path, reason: "close: \(FileIO.errorText(errno))") }
    }

    /// Replaces the regular file (or nothing) at `path` atomically: temporary file, fsync, rename.
    static func replace(_ bytes: UnsafeRawBufferPointer, at path: String) throws(RoadSnapError) {
        func failure(_ what: String, _ code: Int32) -> RoadSnapError {
            .unwritableFile(path: path, reason: "\(what)\(FileIO.errorText(code))")
        }
        let dir = FileIO.directoryName(path)
        try FileIO.makeDirectories(dir)
        StaleTemporaries.clean(directory: dir)
        var random = SystemRandomNumberGenerator()
        let suffix = String(random.next() as UInt64, radix: 36)
        let temp = FileIO.join(dir, ".\(FileIO.baseName(path)).\(getpid()).\(suffix).tmp")
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw failure("cannot create \(temp): ", errno) }
        if let code = FileIO.writeAll(fd, bytes) {
            close(fd)
            unlink(temp)
            throw failure("", code)
        }
        if fsync(fd) != 0 {
            let code = errno
            close(fd)
            unlink(temp)
            throw failure("fsync: ", code)
        }
        if close(fd) != 0 {
            let code = errno
            unlink(temp)
            throw failure("close: ", code)
        }
        if rename(temp, path) != 0 {
            let code = errno
            unlink(temp)
            throw failure("rename: ", code)
        }
        // The rename itself is durable once the folder is flushed (best effort: some file systems refuse it).
        let dirFD = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            _ = fsync(dirFD)
            close(dirFD)
        }
    }
}

/// Removes the temporary files `AtomicFile` left behind in a folder when a process was killed mid-write
/// (`.NAME.PID.SUFFIX.tmp` whose PID is no longer running), once per folder per process.
enum StaleTemporaries {
    private static let cleaned = Locked<Set<String>>([])

    static func clean(directory: String) {
        let first = cleaned.withLock { $0.insert(directory).inserted }
        guard first, let dir = opendir(directory) else { return }
        var stale: [String] = []
        while let entry = readdir(dir) {
            let name = FileIO.entryName(entry)
            if let pid = ownerPID(ofTemporary: name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH {
                stale.append(name)
            }
        }
        closedir(dir)
        for name in stale { unlink(FileIO.join(directory, name)) }
    }

    /// The PID in an `AtomicFile` temporary's name (`.NAME.PID.SUFFIX.tmp`, SUFFIX base 36), nil for other names.
    static func ownerPID(ofTemporary name: String) -> pid_t? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        let parts = name.dropFirst().dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, !parts[parts.count - 3].isEmpty,
              parts[parts.count - 1].allSatisfy({ $0.isASCII && ($0.isNumber || $0.isLowercase) }),
              !parts[parts.count - 1].isEmpty,
              let pid = pid_t(parts[parts.count - 2]), pid > 0
        else { return nil }
        return pid
    }
}

// Outside the enums, whose own `read`/`write` would shadow the POSIX calls.
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
