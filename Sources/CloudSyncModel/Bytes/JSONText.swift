/// JSON string literals written from bytes. Values come from libxml2, which hands out valid UTF-8,
/// so only the characters JSON reserves need escaping.
extension ByteBuffer {
    package static let needsEscape: [Bool] = (0..<256).map { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }

    /// Appends `"text"` with JSON escapes.
    public mutating func appendJSONString(_ text: ByteText) {
        append(UInt8(ascii: "\""))
        appendJSONStringContent(text)
        append(UInt8(ascii: "\""))
    }

    public mutating func appendJSONString(_ literal: StaticString) {
        appendJSONString(ByteText(literal: literal))
    }

    public mutating func appendJSONStringContent(_ text: ByteText) {
        guard let base = text.baseAddress else { return }
        var runStart = 0
        var i = 0
        let table = ByteBuffer.needsEscape
        while i < text.count {
            let byte = base[i]
            if table[Int(byte)] {
                append(ByteText(start: base + runStart, count: i - runStart))
                appendEscape(byte)
                runStart = i + 1
            }
            i += 1
        }
        append(ByteText(start: base + runStart, count: text.count - runStart))
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
