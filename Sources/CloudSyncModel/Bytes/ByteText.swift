/// A view of UTF-8 bytes that someone else owns (libxml2's buffers, an element arena, a static
/// literal). The hot path compares and copies these instead of making a `String` per attribute.
public typealias ByteText = UnsafeBufferPointer<UInt8>

extension UnsafeBufferPointer where Element == UInt8 {
    /// The bytes of a string literal; static storage, valid for the life of the program.
    public init(literal: StaticString) {
        self.init(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
    }

    /// An empty text that still has a non-nil base, so it can be passed to `memcpy`.
    public static var empty: ByteText { ByteText(literal: "") }

    public func equals(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount else { return false }
        return count == 0 || memcmp(baseAddress!, literal.utf8Start, count) == 0
    }

    public func equals(_ other: ByteText) -> Bool {
        guard count == other.count else { return false }
        return count == 0 || memcmp(baseAddress!, other.baseAddress!, count) == 0
    }

    public func hasPrefix(_ literal: StaticString) -> Bool {
        guard count >= literal.utf8CodeUnitCount else { return false }
        return literal.utf8CodeUnitCount == 0 || memcmp(baseAddress!, literal.utf8Start, literal.utf8CodeUnitCount) == 0
    }

    /// The offset of the first occurrence of `needle`, if any.
    public func firstRange(of needle: StaticString) -> Range<Int>? {
        let n = needle.utf8CodeUnitCount
        guard n > 0, count >= n, let base = baseAddress else { return nil }
        let first = needle.utf8Start.pointee
        var i = 0
        while i <= count - n {
            if base[i] == first && memcmp(base + i, needle.utf8Start, n) == 0 { return i..<(i + n) }
            i += 1
        }
        return nil
    }

    public func contains(_ needle: StaticString) -> Bool { firstRange(of: needle) != nil }

    /// A sub-view; `range` must lie inside this view.
    public func slice(_ range: Range<Int>) -> ByteText {
        ByteText(rebasing: self[range])
    }

    /// A `String` copy, for the cold paths (reports, typed model values).
    public var string: String { String(decoding: self, as: UTF8.self) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
