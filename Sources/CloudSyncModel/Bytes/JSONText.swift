/// JSON string literals written from bytes. Values come from libxml2, which hands out valid UTF-8,
/// so only the characters JSON reserves need escaping.
extension ByteBuffer {
    /// Appends `"text"` with JSON escapes.
    public mutating func appendJSONString(_ text: ByteText) {
        append(UInt8(ascii: "\""))
        appendJSONStringContent(text)
        append(UInt8(ascii: "\""))
    }

    public mutating func appendJSONString(_ literal: StaticString) {
        appendJSONString(ByteText(literal: literal))
    }

    /// Eight bytes at a time past those that need no escape (nearly all: names, units, sources), then
    /// byte by byte through a word that holds one. perf on `convert` of the 1 GB export: the loop of a
    /// table look-up per byte was 4.9% of its CPU, our largest symbol.
    public mutating func appendJSONStringContent(_ text: ByteText) {
        guard let base = text.baseAddress else { return }
        let count = text.count
        var runStart = 0
        var i = 0
        while i < count {
            while i + 8 <= count && !Self.holdsEscaped(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { i += 8 }
            let wordEnd = Swift.min(i + 8, count)
            while i < wordEnd {
                let byte = base[i]
                if byte < 0x20 || byte == 0x22 || byte == 0x5C {
                    append(ByteText(start: base + runStart, count: i - runStart))
                    appendEscape(byte)
                    runStart = i + 1
                }
                i += 1
            }
        }
        append(ByteText(start: base + runStart, count: count - runStart))
    }

    /// Whether one of the eight bytes is a control character, `"` or `\`. Exact: each test sets a
    /// byte's high bit only when some byte is what it tests for.
    @inline(__always)
    static func holdsEscaped(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22), backslashes = word ^ (ones &* 0x5C)
        return ((word &- ones &* 0x20) & ~word | (quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes) & highs != 0
    }

    package mutating func appendEscape(_ byte: UInt8) {
        switch byte {
        case 0x22: append("\\\"")
        case 0x5C: append("\\\\")
        case 0x0A: append("\\n")
        case 0x0D: append("\\r")
        case 0x09: append("\\t")
        default:
            let hex: StaticString = "0123456789abcdef"
            append("\\u00")
            append(hex.utf8Start[Int(byte >> 4)])
            append(hex.utf8Start[Int(byte & 0xF)])
        }
    }
}
