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

    /// Reads `fd` to its end. The read chunk is no larger than the expected size plus one byte (to see the end in the
    /// same call), at most 1 MiB, or 64 KiB (a pipe's buffer) without a size: zero-filling a fixed 1 MiB chunk per
    /// call was most of the time of opening a small map (the `capi` fuzz target, docs/reliability.md).
    static func readAll(descriptor fd: Int32, path: String, sizeHint: Int = 0) throws(RoadSnapError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(sizeHint + 1)
        var chunk = [UInt8](repeating: 0, count: sizeHint > 0 ? min(1 << 20, sizeHint + 1) : 1 << 16)
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
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? { OutputFile.writeAll(fd, bytes) }

    /// Writes `text` to standard output in full; a failure (disk full, closed pipe) is an error.
    public static func writeStandardOutput(_ text: String) throws(RoadSnapError) {
        var text = text
        let code = text.withUTF8 { FileIO.writeAll(1, UnsafeRawBufferPointer($0)) }
        if let code { throw .unwritableFile(path: "standard output", reason: errorText(code)) }
    }

    /// The name of a directory entry, read in place (see `OutputFile.entryName`).
    static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String { OutputFile.entryName(entry) }

    static func join(_ a: String, _ b: String) -> String { a.hasSuffix("/") ? a + b : a + "/" + b }

    /// Creates `path` and its missing parents (like `mkdir -p`).
    static func makeDirectories(_ path: String) throws(RoadSnapError) { try OutputFile.makeDirectories(path) }
}

/// Writes files atomically through the project's one atomic writer (`OutputFile`, Core; `AtomicFileWriter` in the
/// Bridge): what is at the path decides how (nothing or a regular file: temporary beside it, fsync, rename; a
/// symbolic link: followed, the link stays; a character device or FIFO: written through in place; a directory, block
/// device or socket: refused). Every failure (folder not creatable, disk full, rename refused) is an error naming the
/// path; the temporary is removed and the old file stays.
public enum AtomicFile {
    public static func write(_ text: String, to path: String) throws(RoadSnapError) {
        var text = text
        try text.withUTF8 { buffer in
            Result { () throws(RoadSnapError) in try OutputFile.write(UnsafeRawBufferPointer(buffer), to: path) }
        }.get()
    }

    public static func write(_ bytes: [UInt8], to path: String) throws(RoadSnapError) {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(RoadSnapError) in try OutputFile.write(buffer, to: path) }
        }.get()
    }

    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws(RoadSnapError) {
        try OutputFile.write(bytes, to: path)
    }

    /// Streams an output into `path`: `render` appends to a `ChunkedOutput` whose chunks (`chunkSize` bytes or more)
    /// are written as they fill, so the whole output is never held in memory; the file is committed at the end. When
    /// `render` or a write fails, the temporary is removed and the old file stays.
    public static func stream(to path: String, chunkSize: Int = ChunkedOutput.defaultChunkSize,
                              _ render: (ChunkedOutput) throws(RoadSnapError) -> Void) throws(RoadSnapError)
    {
        let file = try OutputFile(path: path)
        let out = ChunkedOutput(chunkSize: chunkSize) { bytes throws(RoadSnapError) in try file.write(bytes) }
        do {
            try render(out)
            try out.finish()
            try file.commit()
        } catch {
            file.abandon()
            throw error
        }
    }
}

// Outside the enums, whose own `read`/`write` would shadow the POSIX calls.
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
