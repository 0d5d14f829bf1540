extension String {
    /// The UTF-8 bytes, as the parsers take them.
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var copy = self
        return copy.withUTF8(body)
    }
}
