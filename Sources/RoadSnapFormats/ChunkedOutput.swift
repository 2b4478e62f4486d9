import RoadSnapCore

/// The bytes of an output on their way out, in chunks, so a big track's output is never held whole in memory
/// (issue 16, item 11). Renderers append to `bytes` and call `chunkDone()` after each record (a fix, a feature); once
/// `bytes` holds `chunkSize` bytes or more they go to the sink and the buffer is reused. Without a sink everything
/// stays in `bytes` (rendering to a `String`), so one renderer serves both.
///
/// The first failure of the sink is kept: later chunks are dropped (memory stays bounded) and `finish()` throws it.
public final class ChunkedOutput {
    /// 64 KiB: large enough that writes cost little, small beside any track's output.
    public static let defaultChunkSize = 1 << 16

    /// Bytes not yet handed to the sink (everything, without a sink).
    public var bytes: [UInt8] = []
    /// Bytes handed to the sink so far.
    public private(set) var written = 0
    private let chunkSize: Int
    private let sink: ((UnsafeRawBufferPointer) throws(RoadSnapError) -> Void)?
    private var failure: RoadSnapError?

    /// Keeps everything in `bytes`.
    public init() {
        chunkSize = .max
        sink = nil
    }

    /// Hands the bytes to `sink` in chunks of at least `chunkSize` bytes (at least 1).
    public init(chunkSize: Int = ChunkedOutput.defaultChunkSize,
                sink: @escaping (UnsafeRawBufferPointer) throws(RoadSnapError) -> Void)
    {
        self.chunkSize = max(1, chunkSize)
        self.sink = sink
        bytes.reserveCapacity(min(self.chunkSize, Self.defaultChunkSize) + 4096)
    }

    /// Appends the UTF-8 of `text`.
    @inline(__always)
    public func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Appends one byte.
    @inline(__always)
    public func append(_ byte: UInt8) { bytes.append(byte) }

    /// Ends a record: hands the bytes to the sink when a chunk is full.
    @inline(__always)
    public func chunkDone() {
        if bytes.count >= chunkSize { drain() }
    }

    /// Hands everything buffered to the sink and reports its first failure.
    public func finish() throws(RoadSnapError) {
        drain()
        if let failure { throw failure }
    }

    /// The whole output as text (without a sink: everything appended).
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    private func drain() {
        guard let sink, !bytes.isEmpty else { return }
        if failure == nil {
            do {
                try bytes.withUnsafeBytes { b in Result { () throws(RoadSnapError) in try sink(b) } }.get()
                written += bytes.count
            } catch { failure = error }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
