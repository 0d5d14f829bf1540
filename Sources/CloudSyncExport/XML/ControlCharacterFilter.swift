#if canImport(Glibc)
import Glibc
#endif

/// Replaces the control characters XML 1.0 forbids (all below U+0020 but tab, line feed and
/// carriage return), and DEL (U+007F), with a space, in place.
///
/// Why: iOS 16 exports carry raw vertical tabs (U+000B) inside attribute values (device names,
/// metadata), and libxml2 stops at the first one with a fatal error. A space keeps every other byte
/// where it was, so line and column numbers stay right. DEL is allowed by XML but never written by
/// Apple; it is replaced so that DEL can mean a marked entity (`EntityMarks`).
///
/// Runs over every byte of the export, so it checks 16 bytes at a time and only looks closer when a
/// block holds a byte below 0x20 or a DEL.
public enum ControlCharacterFilter {
    /// Returns how many bytes were replaced with a space (marks are not counted).
    public static func replaceForbidden(in buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        let n = buffer.count
        var replaced = 0
        var i = 0
        let space = SIMD16<UInt8>(repeating: 0x20)
        let delete = SIMD16<UInt8>(repeating: EntityMarks.mark)
        while i + 16 <= n {
            let block = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<UInt8>.self)
            if any((block .< space) .| (block .== delete)) {
                replaced += replaceScalar(base + i, 16)
            }
            i += 16
        }
        replaced += replaceScalar(base + i, n - i)
        return replaced
    }

    static func replaceScalar(_ p: UnsafeMutablePointer<UInt8>, _ n: Int) -> Int {
        var replaced = 0
        for j in 0..<n {
            let byte = p[j]
            if (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) || byte == EntityMarks.mark {
                p[j] = 0x20
                replaced += 1
            }
        }
        return replaced
    }
}

/// `&lt;` and `&gt;` with their `&` replaced by DEL (U+007F) before libxml2 (`ExportBytePass`), so
/// that libxml2 keeps an attribute value on its fast path; turned back into `<` and `>` where
/// attribute values are copied (`ElementBatch.appendValue`).
///
/// Why: every record's `device` attribute is written with `&lt;` and `&gt;` (`&lt;&lt;HKDevice:
/// 0x…&gt;, name:iPhone, …&gt;`), and an `&` sends libxml2 from its fast path for attribute values to
/// its slow one, a function call per character: 42% of libxml2's instructions on the 48 MB generated
/// export. With the `&` marked, the floor's own parse of the file took 1.64 G instructions against
/// 3.14 G. An entity cut by the end of the buffer is left as it is: libxml2 reads it the slow way,
/// with the same result. A raw DEL never reaches libxml2
/// (it is replaced with a space), so a DEL in a value is a mark; but for a DEL written as a character
/// reference (`&#127;`), which the filter cannot see, right before the letters `lt;` or `gt;`.
public enum EntityMarks {
    public static let mark: UInt8 = 0x7F

    /// Marks each `&lt;` and `&gt;` that `buffer` holds whole. `memchr` finds the `&`s: a check of
    /// them in `ControlCharacterFilter`'s 16-byte pass sent a third of its blocks (those of the
    /// `device` attributes) to a byte-at-a-time loop, 155 M instructions against 62 M on the 48 MB
    /// export.
    public static func mark(in buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress else { return }
        let end = base + buffer.count
        var p = base
        while p < end, let found = memchr(p, 0x26, end - p) {
            let ampersand = found.assumingMemoryBound(to: UInt8.self)
            if end - ampersand >= 4, isAngleEntity(ampersand + 1) { ampersand.pointee = mark }
            p = ampersand + 1
        }
    }

    /// Whether the three bytes at `p` are `lt;` or `gt;`.
    @inline(__always)
    static func isAngleEntity(_ p: UnsafePointer<UInt8>) -> Bool {
        (p[0] == UInt8(ascii: "l") || p[0] == UInt8(ascii: "g")) && p[1] == UInt8(ascii: "t") && p[2] == UInt8(ascii: ";")
    }

    /// The character a marked entity at `p` (the mark, then `lt;` or `gt;`, `available` bytes in
    /// all) stands for, or nil when the bytes there are not one.
    @inline(__always)
    static func character(at p: UnsafePointer<UInt8>, available: Int) -> UInt8? {
        guard available >= 4, p[0] == mark, isAngleEntity(p + 1) else { return nil }
        return p[1] == UInt8(ascii: "l") ? UInt8(ascii: "<") : UInt8(ascii: ">")
    }
}
