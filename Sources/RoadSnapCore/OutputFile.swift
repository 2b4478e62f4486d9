#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import RoadSnapBridge

/// An output file written atomically and in chunks: the project's one atomic writer (`AtomicFileWriter` in the
/// Bridge, which `roadsnap compile` uses too), for the layers above Core.
///
/// What is at the path decides how it is written: nothing or a regular file is replaced atomically (a temporary
/// `.NAME.PID.SUFFIX.tmp` beside it, flushed and renamed by `commit()`; dropped uncommitted or after a failure the
/// temporary is removed and the old file stays); a symbolic link is followed (the link stays); a character device or
/// FIFO is written through in place; a directory, block device or socket is refused. Every failure, disk full
/// included, is `RoadSnapError.unwritableFile` naming the path.
public final class OutputFile {
    private let writer: AtomicFileWriter

    /// Opens `path` for writing.
    public init(path: String) throws(RoadSnapError) { writer = try native { () throws(NativeFailure) in try AtomicFileWriter(path: path) } }

    /// The path as given.
    public var path: String { writer.path }

    /// Bytes written so far.
    public var count: UInt64 { writer.count }

    /// Appends `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(RoadSnapError) {
        try native { () throws(NativeFailure) in try writer.write(bytes) }
    }

    /// Appends `bytes`.
    public func write(_ bytes: [UInt8]) throws(RoadSnapError) {
        try native { () throws(NativeFailure) in try writer.write(bytes) }
    }

    /// Finishes the file (flush and rename into place; a device or FIFO is closed).
    public func commit() throws(RoadSnapError) { try native { () throws(NativeFailure) in try writer.commit() } }

    /// Gives up: the temporary is removed and the old file stays (what dropping an uncommitted file does).
    public func abandon() { writer.abandon() }

    /// Writes `bytes` to `path` in one go.
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws(RoadSnapError) {
        try native { () throws(NativeFailure) in try AtomicFileWriter.write(bytes, to: path) }
    }

    /// Writes all of `bytes` to descriptor `fd` (standard output: 1), retrying partial writes and EINTR; the errno of
    /// a failure, nil on success.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        AtomicFileWriter.writeAll(fd, bytes)
    }

    /// Creates `path` and its missing parents (like `mkdir -p`).
    public static func makeDirectories(_ path: String) throws(RoadSnapError) {
        try native { () throws(NativeFailure) in try AtomicFileWriter.makeDirectories(path) }
    }

    /// The PID in a temporary's name (`.NAME.PID.SUFFIX.tmp`), nil for other names: how a later run tells a killed
    /// run's temporaries (removed the first time a folder is written into) from anything else.
    public static func ownerPID(ofTemporary name: String) -> Int32? { StaleTemporaries.ownerPID(ofTemporary: name) }

    /// The name of a directory entry read in place from `readdir`'s record (`d_name` copied whole can read past a
    /// short record).
    public static func entryName(_ entry: UnsafeMutableRawPointer) -> String {
        StaleTemporaries.entryName(entry.assumingMemoryBound(to: dirent.self))
    }
}
