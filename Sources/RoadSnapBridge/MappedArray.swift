#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the memory behind `MappedArray`s alive: a heap buffer, a memory-mapped file, or caller-owned bytes.
public class MemoryOwner: @unchecked Sendable {
    init() {}
}

/// A heap buffer holding one array's elements (freed with the owner).
final class HeapBuffer: MemoryOwner, @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
    init(byteCount: Int, alignment: Int) {
        raw = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(byteCount, 1), alignment: Swift.max(alignment, 16))
    }
    deinit { raw.deallocate() }
}

/// A fixed-size array of plain values (no references inside) read in place from memory that `owner` keeps alive:
/// a heap copy for networks built in memory, or a section of a memory-mapped compiled map. Immutable, so
/// shareable between threads. Reading an element is one load, as for `Array`.
public struct MappedArray<Element>: RandomAccessCollection, @unchecked Sendable {
    @usableFromInline let base: UnsafePointer<Element>
    public let count: Int
    @usableFromInline let owner: MemoryOwner?

    public typealias Index = Int
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    @inlinable public subscript(i: Int) -> Element {
        precondition(i >= 0 && i < count, "MappedArray index out of range")
        return base[i]
    }

    /// A copy of `array` in a heap buffer (Element must be a plain value type: no classes, strings or arrays).
    public init(_ array: [Element]) {
        let buffer = HeapBuffer(byteCount: array.count * MemoryLayout<Element>.stride,
                                alignment: MemoryLayout<Element>.alignment)
        let typed = buffer.raw.bindMemory(to: Element.self, capacity: Swift.max(array.count, 1))
        array.withUnsafeBufferPointer { src in
            if let b = src.baseAddress { typed.initialize(from: b, count: array.count) }
        }
        base = UnsafePointer(typed)
        count = array.count
        owner = buffer
    }

    /// Elements read in place at `pointer` (suitably aligned), kept alive by `owner`.
    public init(borrowing pointer: UnsafeRawPointer, count: Int, owner: MemoryOwner?) {
        base = pointer.assumingMemoryBound(to: Element.self)
        self.count = count
        self.owner = owner
    }

    /// An empty array.
    public init() { self.init([]) }

    /// The elements' memory, valid while this array (or its owner) lives.
    public var baseAddress: UnsafePointer<Element> { base }

    /// Calls `body` with the elements' memory.
    public func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<Element>) throws(E) -> R) throws(E) -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The number of bytes the elements take.
    public var byteCount: Int { count * MemoryLayout<Element>.stride }
}

/// A read-only memory map of a whole file (unmapped with the owner), or caller-owned bytes in memory.
public final class MappedMemory: MemoryOwner, @unchecked Sendable {
    /// First byte and size.
    public let bytes: UnsafeRawPointer
    public let size: Int
    /// File descriptor of a mapped file (kept open for checksum reads without touching the mapping), else -1.
    public let fileDescriptor: Int32
    private let mapped: Bool

    /// Maps `path` read-only and shared (pages are loaded on first touch and shared with other processes).
    package init(path: String) throws(NativeFailure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadableFile(path: path, reason: String(cString: strerror(errno))) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .unreadableFile(path: path, reason: reason)
        }
        let size = Int(st.st_size)
        guard size > 0 else {
            close(fd)
            throw .invalidMap(path: path, reason: "compiled map is empty (0 bytes)")
        }
        guard let p = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .unreadableFile(path: path, reason: "cannot map the file: \(reason)")
        }
        bytes = UnsafeRawPointer(p)
        self.size = size
        fileDescriptor = fd
        mapped = true
    }

    /// Caller-owned bytes, which must stay valid and unchanged while this object lives.
    public init(borrowing bytes: UnsafeRawPointer, size: Int) {
        self.bytes = bytes
        self.size = size
        fileDescriptor = -1
        mapped = false
    }

    deinit {
        if mapped { munmap(UnsafeMutableRawPointer(mutating: bytes), size) }
        if fileDescriptor >= 0 { close(fileDescriptor) }
    }
}

/// Equal when the elements are (wherever they live).
extension MappedArray: Equatable where Element: Equatable {
    public static func == (a: MappedArray, b: MappedArray) -> Bool { a.count == b.count && a.elementsEqual(b) }
}
