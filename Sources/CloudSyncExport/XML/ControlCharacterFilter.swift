import CloudSyncModel

/// Prepares export.xml's bytes for libxml2 in one pass, in place, on the reader thread:
///
/// - Replaces the control characters XML 1.0 forbids (all below U+0020 but tab, line feed and
///   carriage return), and DEL (U+007F), with a space.
/// - Marks the entities `&lt;` and `&gt;` (`EntityMarks`): their `&` becomes DEL, the mark.
///
/// Why the spaces: iOS 16 exports carry raw vertical tabs (U+000B) inside attribute values (device
/// names, metadata), and libxml2 stops at the first one with a fatal error. A space keeps every
/// other byte where it was, so line and column numbers stay right. DEL is allowed by XML but never
/// written by Apple; it is replaced so that the mark means only a marked entity.
///
/// Why the marks: every record's `device` attribute is written with `&lt;` and `&gt;`
/// (`&lt;&lt;HKDevice: 0x…&gt;, name:iPhone, …&gt;`), and an `&` sends libxml2 from its fast
/// path for attribute values to its slow one, a function call per character: 42% of libxml2's
/// instructions on the 48 MB generated export. With the `&` marked, libxml2 reads the value as
/// plain text and `ElementBatch` turns the marks back into `<` and `>` as it copies the value: the
/// floor's own parse of the marked file took 1.64 G instructions against 3.14 G.
///
/// Runs over every byte of the export, so it checks 16 bytes at a time and only looks closer when
/// a block holds a byte below 0x20, an `&` or a DEL. An entity cut by the end of the buffer is left
/// as it is: libxml2 reads it the slow way, with the same result.
public enum ControlCharacterFilter {
    /// Returns how many bytes were replaced with a space (marks are not counted).
    public static func replaceForbidden(in buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        let n = buffer.count
        var replaced = 0
        var i = 0
        let space = SIMD16<UInt8>(repeating: 0x20)
        let ampersand = SIMD16<UInt8>(repeating: 0x26)
        let delete = SIMD16<UInt8>(repeating: EntityMarks.mark)
        while i + 16 <= n {
            let block = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<UInt8>.self)
            if any((block .< space) .| (block .== ampersand) .| (block .== delete)) {
                replaced += replaceScalar(base, from: i, to: i + 16, end: n)
            }
            i += 16
        }
        replaced += replaceScalar(base, from: i, to: n, end: n)
        return replaced
    }

    /// Bytes `from..<to` of `p`; an entity starting there may be read up to `end`.
    static func replaceScalar(_ p: UnsafeMutablePointer<UInt8>, from: Int, to: Int, end: Int) -> Int {
        var replaced = 0
        for j in from..<to {
            let byte = p[j]
            if byte < 0x20 {
                if byte != 0x09, byte != 0x0A, byte != 0x0D {
                    p[j] = 0x20
                    replaced += 1
                }
            } else if byte == EntityMarks.mark {
                p[j] = 0x20
                replaced += 1
            } else if byte == 0x26, j + 3 < end, EntityMarks.isAngleEntity(p + j + 1) {
                p[j] = EntityMarks.mark
            }
        }
        return replaced
    }
}

/// `&lt;` and `&gt;` with their `&` replaced by DEL (U+007F) before libxml2 (`ControlCharacterFilter`),
/// so that libxml2 keeps an attribute value on its fast path; turned back into `<` and `>` where
/// attribute values are copied (`ElementBatch.storeAttributeValue`). A raw DEL never reaches libxml2
/// (it is replaced with a space), so a DEL in a value is a mark; but for a DEL written as a character
/// reference (`&#127;`), which the filter cannot see, right before the letters `lt;` or `gt;`.
public enum EntityMarks {
    public static let mark: UInt8 = 0x7F

    /// Whether the three bytes at `p` are `lt;` or `gt;`.
    @inline(__always)
    static func isAngleEntity(_ p: UnsafePointer<UInt8>) -> Bool {
        (p[0] == UInt8(ascii: "l") || p[0] == UInt8(ascii: "g")) && p[1] == UInt8(ascii: "t") && p[2] == UInt8(ascii: ";")
    }

    /// `bytes` with each marked entity turned back into its character.
    static func unmarked(_ bytes: ByteText) -> [UInt8] {
        guard let base = bytes.baseAddress else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if let character = character(at: base + i, available: bytes.count - i) {
                out.append(character)
                i += 4
            } else {
                out.append(base[i])
                i += 1
            }
        }
        return out
    }

    /// The character a marked entity at `p` (the mark, then `lt;` or `gt;`, `available` bytes in
    /// all) stands for, or nil when the bytes there are not one.
    @inline(__always)
    static func character(at p: UnsafePointer<UInt8>, available: Int) -> UInt8? {
        guard available >= 4, p[0] == mark, isAngleEntity(p + 1) else { return nil }
        return p[1] == UInt8(ascii: "l") ? UInt8(ascii: "<") : UInt8(ascii: ">")
    }
}
