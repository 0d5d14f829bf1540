import CloudSyncModel
/// Texts that live as long as the reader (metric names, units, type names made from a name), one
/// copy each: the metric's views point here across the points of a whole array.
final class NamePool {
    private var texts: [String: ByteText] = [:]

    deinit { for text in texts.values { UnsafeMutableBufferPointer(mutating: text).deallocate() } }

    /// Disfavoured: a literal goes to the `StaticString` form, without a look-up.
    @_disfavoredOverload
    func text(_ string: String) -> ByteText {
        if let text = texts[string] { return text }
        let bytes = Array(string.utf8)
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = storage.initialize(from: bytes)
        let text = ByteText(start: storage.baseAddress, count: bytes.count)
        texts[string] = text
        return text
    }

    func text(_ literal: StaticString) -> ByteText { ByteText(literal: literal) }
}
