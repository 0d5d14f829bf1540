import Synchronization

/// How far the parser is through the export's XML, readable from another thread (the mapping
/// thread reports progress while the parse thread counts bytes).
public final class ReadProgress: Sendable {
    private let parsed = Atomic<Int64>(0)
    private let expected = Atomic<Int64>(-1)

    public init() {}

    /// XML bytes handed to the parser so far.
    public var bytes: Int64 { parsed.load(ordering: .relaxed) }
    /// The XML's size when the input declares it (a file, a zip's directory); nil for a pipe.
    public var totalBytes: Int64? {
        let value = expected.load(ordering: .relaxed)
        return value >= 0 ? value : nil
    }

    func add(_ count: Int) { parsed.add(Int64(count), ordering: .relaxed) }
    func expect(_ total: Int64?) { expected.store(total ?? -1, ordering: .relaxed) }
}
