import CShims

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The engine version written into compiled maps (the same as `rs_version()`).
public let roadSnapEngineVersion = "0.1.0"

/// Sections of a compiled map start at multiples of this many bytes (and so must a compiled map held in memory).
public let compiledMapAlignment = Int(RSC_RSMAP_ALIGN)

/// Fixed-width records of a compiled map, laid out by C (see CShims/include/cshims_rsmap.h).
package typealias EdgeRecord = rsc_edge_record
package typealias AttributeRecord = rsc_attr_record
package typealias RestrictionRecord = rsc_restriction_record
package typealias IndexView = rsc_index_view

/// The 64-bit checksum of compiled maps (four-lane multiply-rotate, xxHash64's structure; see CShims/hash.c).
public enum Checksum {
    public static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        rsc_hash64(bytes.baseAddress, bytes.count, seed)
    }

    /// Hash of a whole file, read with `pread` (the file is not mapped); nil when it cannot be read.
    public static func hash(filePath path: String) -> (size: UInt64, hash: UInt64)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        var h: UInt64 = 0
        guard rsc_hash_fd(fd, 0, UInt64(st.st_size), 0, &h) == RSC_OK else { return nil }
        return (UInt64(st.st_size), h)
    }
}

/// Writes a compiled map: sections of fixed-width elements, each 64-byte aligned and checksummed, then the section
/// table and the header. Writes go through the project's one atomic writer (`AtomicFileWriter`): a temporary file
/// next to the destination that replaces it only once complete (`finish`), so a failed compile (disk full) leaves an
/// existing file intact and no temporary behind; a symbolic link is followed, a character device (`/dev/null`) is
/// written through, and a FIFO, directory, block device or socket is refused (the header is written last, so the
/// output must be able to seek).
public final class CompiledMapWriter {
    public let path: String
    private let file: AtomicFileWriter
    private var offset: UInt64
    private var sections: [rsc_rsmap_section] = []
    private static let formatVersion: UInt32 = 2

    /// Opens the output at `path` (a temporary beside it for a regular file).
    package init(path: String) throws(NativeFailure) {
        self.path = path
        file = try AtomicFileWriter(path: path, seekable: true)
        offset = UInt64(MemoryLayout<rsc_rsmap_header>.size)
        try writeZeros(Int(offset))
    }

    /// The current version of the file layout; files of another version are refused with a clear error.
    public static var currentFormatVersion: UInt32 { formatVersion }

    /// A write error with what was being written; the writer has already removed its temporary.
    private func failed(_ error: NativeFailure, _ what: String) -> NativeFailure {
        guard error.kind == .unwritableFile else { return error }
        return .unwritableFile(path: path, reason: "write failed (\(what)): \(error.message); the existing file, if any, is unchanged")
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(NativeFailure) {
        do { try file.write(bytes) } catch { throw failed(error, "writing sections") }
    }

    private func writeZeros(_ count: Int) throws(NativeFailure) {
        guard count > 0 else { return }
        let zeros = [UInt8](repeating: 0, count: count)
        try zeros.withUnsafeBytes { b in Result { () throws(NativeFailure) in try writeAll(b) } }.get()
    }

    /// Appends section `id`: `count` elements of `elementSize` bytes at `bytes`.
    package func add(id: UInt32, bytes: UnsafeRawPointer?, count: Int, elementSize: Int) throws(NativeFailure) {
        let pad = Int((UInt64(RSC_RSMAP_ALIGN) - offset % UInt64(RSC_RSMAP_ALIGN)) % UInt64(RSC_RSMAP_ALIGN))
        try writeZeros(pad)
        offset += UInt64(pad)
        let length = count * elementSize
        let buffer = UnsafeRawBufferPointer(start: length > 0 ? bytes : nil, count: length > 0 ? length : 0)
        try writeAll(buffer)
        sections.append(rsc_rsmap_section(id: id, element_size: UInt32(elementSize), offset: offset,
                                          count: UInt64(count), hash: rsc_hash64(buffer.baseAddress, length, 0)))
        offset += UInt64(length)
    }

    /// Appends a section holding `array`'s elements.
    package func add<T>(id: UInt32, _ array: MappedArray<T>) throws(NativeFailure) {
        try add(id: id, bytes: UnsafeRawPointer(array.baseAddress), count: array.count, elementSize: MemoryLayout<T>.stride)
    }

    /// Appends a section holding `array`'s elements.
    package func add<T>(id: UInt32, _ array: [T]) throws(NativeFailure) {
        try array.withUnsafeBytes { b in
            Result { () throws(NativeFailure) in
                try add(id: id, bytes: b.baseAddress, count: array.count, elementSize: MemoryLayout<T>.stride)
            }
        }.get()
    }

    /// Writes the section table and header, flushes, and renames the file into place.
    package func finish(sourceSize: UInt64, sourceHash: UInt64) throws(NativeFailure) {
        let pad = Int((UInt64(RSC_RSMAP_ALIGN) - offset % UInt64(RSC_RSMAP_ALIGN)) % UInt64(RSC_RSMAP_ALIGN))
        try writeZeros(pad)
        offset += UInt64(pad)
        let tableOffset = offset
        let tableHash = sections.withUnsafeBytes { rsc_hash64($0.baseAddress, $0.count, 0) }
        try sections.withUnsafeBytes { b in Result { () throws(NativeFailure) in try writeAll(b) } }.get()
        offset += UInt64(sections.count * MemoryLayout<rsc_rsmap_section>.size)
        var header = rsc_rsmap_header()
        withUnsafeMutableBytes(of: &header.magic) { m in
            for (i, c) in RSC_RSMAP_MAGIC.utf8.prefix(8).enumerated() { m[i] = c }
        }
        header.endian = RSC_RSMAP_ENDIAN
        header.format_version = Self.formatVersion
        header.header_size = UInt32(MemoryLayout<rsc_rsmap_header>.size)
        header.section_count = UInt32(sections.count)
        header.file_size = offset
        header.section_table_offset = tableOffset
        header.section_table_hash = tableHash
        header.source_size = sourceSize
        header.source_hash = sourceHash
        withUnsafeMutableBytes(of: &header.engine_version) { m in
            for (i, c) in roadSnapEngineVersion.utf8.prefix(31).enumerated() { m[i] = c }
        }
        header.header_hash = withUnsafeBytes(of: &header) { rsc_hash64($0.baseAddress, $0.count, 0) }
        do {
            try withUnsafeBytes(of: &header) { b in
                Result { () throws(NativeFailure) in try file.write(b, at: 0) }
            }.get()
        } catch { throw failed(error, "writing the header") }
        do { try file.commit() } catch { throw failed(error, "finishing the file") }
    }
}

/// An opened compiled map: its header and section table checked against the file's size, and section checksums
/// verified (all at once, or each on first request). Sections are read in place from the mapping.
public final class CompiledMapFile: @unchecked Sendable {
    public let path: String
    public let memory: MappedMemory
    public let formatVersion: UInt32
    public let engineVersion: String
    /// The source map's size and hash at compile time (0 when compiled from a network in memory).
    public let sourceSize: UInt64
    public let sourceHash: UInt64
    private let sections: [UInt32: rsc_rsmap_section]
    private let verified: VerifiedSet

    final class VerifiedSet: @unchecked Sendable {
        var ids: Set<UInt32> = []
        var lock = pthread_mutex_t()
        init() { pthread_mutex_init(&lock, nil) }
        deinit { pthread_mutex_destroy(&lock) }
    }

    /// Checks the file in `memory`; `path` names it in messages. `verifyAll` checksums every section now, else each
    /// the first time it is requested.
    package init(memory: MappedMemory, path: String, verifyAll: Bool = true,
                sectionNames: [UInt32: String] = [:]) throws(NativeFailure)
    {
        self.path = path
        self.sectionNames = sectionNames
        self.memory = memory
        func bad(_ reason: String) -> NativeFailure { .invalidMap(path: path, reason: reason) }
        let headerSize = MemoryLayout<rsc_rsmap_header>.size
        let magic = Array(RSC_RSMAP_MAGIC.utf8.prefix(8))
        let leading = UnsafeRawBufferPointer(start: memory.bytes, count: min(8, memory.size))
        guard leading.elementsEqual(magic) else {
            throw bad("not a compiled RoadSnap map (no RSNAPMAP magic at the start; compile one with `roadsnap compile`)")
        }
        guard memory.size >= headerSize else {
            throw bad("compiled map is truncated: \(memory.size) bytes, shorter than its \(headerSize)-byte header")
        }
        var header = rsc_rsmap_header()
        withUnsafeMutableBytes(of: &header) { $0.copyMemory(from: UnsafeRawBufferPointer(start: memory.bytes, count: headerSize)) }
        if header.endian != RSC_RSMAP_ENDIAN {
            if header.endian == RSC_RSMAP_ENDIAN.byteSwapped {
                throw bad("compiled map was written on a machine of the other byte order; compile it again on this one")
            }
            throw bad("compiled map header is corrupt (byte-order mark \(header.endian))")
        }
        let stored = header.header_hash
        var zeroed = header
        zeroed.header_hash = 0
        let computed = withUnsafeBytes(of: &zeroed) { rsc_hash64($0.baseAddress, $0.count, 0) }
        let version = header.format_version
        guard computed == stored else {
            if version != Self.supportedVersion, header.header_size != UInt32(headerSize) {
                throw bad("compiled map has format version \(version); this engine reads version \(Self.supportedVersion): compile it again")
            }
            throw bad("compiled map header is corrupt (checksum mismatch): compile it again")
        }
        guard version == Self.supportedVersion else {
            throw bad("compiled map has format version \(version); this engine reads version \(Self.supportedVersion): compile it again")
        }
        guard header.header_size == UInt32(headerSize) else { throw bad("compiled map header has an unexpected size") }
        guard header.file_size == UInt64(memory.size) else {
            if UInt64(memory.size) < header.file_size {
                throw bad("compiled map is truncated: \(memory.size) of \(header.file_size) bytes")
            }
            throw bad("compiled map has \(UInt64(memory.size) - header.file_size) unexpected bytes after its end")
        }
        let tableBytes = UInt64(header.section_count) * UInt64(MemoryLayout<rsc_rsmap_section>.size)
        guard header.section_count <= 4096, header.section_table_offset % 8 == 0,
              header.section_table_offset >= UInt64(headerSize),
              header.section_table_offset <= header.file_size, tableBytes <= header.file_size - header.section_table_offset
        else { throw bad("compiled map section table lies outside the file") }
        let table = UnsafeRawBufferPointer(start: memory.bytes + Int(header.section_table_offset), count: Int(tableBytes))
        guard rsc_hash64(table.baseAddress, table.count, 0) == header.section_table_hash else {
            throw bad("compiled map section table is corrupt (checksum mismatch): compile it again")
        }
        var sections: [UInt32: rsc_rsmap_section] = [:]
        for i in 0..<Int(header.section_count) {
            let s = table.loadUnaligned(fromByteOffset: i * MemoryLayout<rsc_rsmap_section>.size, as: rsc_rsmap_section.self)
            let (length, overflow) = s.count.multipliedReportingOverflow(by: UInt64(s.element_size))
            guard !overflow, s.offset % UInt64(RSC_RSMAP_ALIGN) == 0, s.offset >= UInt64(headerSize),
                  s.offset <= header.section_table_offset, length <= header.section_table_offset - s.offset
            else { throw bad("compiled map section \(s.id) lies outside the file") }
            sections[s.id] = s
        }
        self.sections = sections
        formatVersion = version
        engineVersion = withUnsafeBytes(of: &header.engine_version) { b in
            String(decoding: b.prefix { $0 != 0 }, as: UTF8.self)
        }
        sourceSize = header.source_size
        sourceHash = header.source_hash
        verified = VerifiedSet()
        if verifyAll {
            for id in sections.keys.sorted() { try verify(id) }
        }
    }

    /// The version of the layout this engine reads.
    public static var supportedVersion: UInt32 { CompiledMapWriter.currentFormatVersion }

    /// Whether the bytes at `memory` start like a compiled map.
    public static func looksCompiled(path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var b = [UInt8](repeating: 0, count: 8)
        guard read(fd, &b, 8) == 8 else { return false }
        return b.elementsEqual(RSC_RSMAP_MAGIC.utf8.prefix(8))
    }

    /// Checksums section `id` (once).
    package func verify(_ id: UInt32) throws(NativeFailure) {
        pthread_mutex_lock(&verified.lock)
        defer { pthread_mutex_unlock(&verified.lock) }
        if verified.ids.contains(id) { return }
        guard let s = sections[id] else { throw .invalidMap(path: path, reason: "compiled map has no section \(id)") }
        let length = s.count * UInt64(s.element_size)
        var h: UInt64 = 0
        if memory.fileDescriptor >= 0 {
            guard rsc_hash_fd(memory.fileDescriptor, s.offset, length, 0, &h) == RSC_OK else {
                throw .unreadableFile(path: path, reason: "could not read section \(id) to verify it")
            }
        } else {
            h = rsc_hash64(memory.bytes + Int(s.offset), Int(length), 0)
        }
        guard h == s.hash else {
            throw .invalidMap(path: path, reason: "compiled map section \(id) (\(name(of: id))) is corrupt (checksum mismatch): compile it again")
        }
        verified.ids.insert(id)
    }

    /// Names of section ids, for messages.
    private let sectionNames: [UInt32: String]
    private func name(of id: UInt32) -> String { sectionNames[id] ?? "unknown" }

    /// Bytes of each section, by id.
    public var sectionSizes: [UInt32: Int] { sections.mapValues { Int($0.count) * Int($0.element_size) } }

    /// Whether the file has section `id`.
    public func has(_ id: UInt32) -> Bool { sections[id] != nil }

    /// Section `id` as an array of `T`, read in place; verified first (once) unless `verify` is false (the
    /// caller then verifies it before the contents are used).
    package func array<T>(_ id: UInt32, of: T.Type = T.self, verify check: Bool = true) throws(NativeFailure)
        -> MappedArray<T>
    {
        if check { try verify(id) }
        guard let s = sections[id] else { throw .invalidMap(path: path, reason: "compiled map has no section \(id)") }
        guard Int(s.element_size) == MemoryLayout<T>.stride else {
            throw .invalidMap(path: path, reason: "compiled map section \(id) (\(name(of: id))) has \(s.element_size)-byte elements, expected \(MemoryLayout<T>.stride)")
        }
        return MappedArray(borrowing: memory.bytes + Int(s.offset), count: Int(s.count), owner: memory)
    }

    /// The one element of section `id`.
    package func scalar<T>(_ id: UInt32, of: T.Type = T.self) throws(NativeFailure) -> T {
        let a: MappedArray<T> = try array(id)
        guard a.count == 1 else { throw .invalidMap(path: path, reason: "compiled map section \(id) (\(name(of: id))) should hold one record") }
        return a[0]
    }
}
