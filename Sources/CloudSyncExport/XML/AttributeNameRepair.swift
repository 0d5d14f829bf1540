#if canImport(Glibc)
public import CloudSyncModel
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Repairs attribute names that contain spaces (`<Record … Some App Version="2.6.2"/>`) in the byte
/// stream, before libxml2 sees it.
///
/// Why: iOS 8 wrote a record's metadata as extra attributes named by their keys, and some apps'
/// keys hold spaces. That is not well-formed XML, and libxml2 stops at the first one, so such an
/// export gave nothing. The space inside a name becomes `_x0020_` (the escape XML tools use for a
/// character a name cannot hold, `_xHHHH_`); `AttributeNameRepair.key` turns it back, so the
/// metadata key comes out as written.
///
/// Rule: inside a start tag, whitespace after an attribute name followed by another name character
/// (rather than `=`) belongs to the name. Well-formed XML never has that, so the repair changes
/// nothing in a well-formed file; comments, processing instructions, CDATA, end tags and attribute
/// values are passed over whole. Only exports without a DTD (iOS 8's) go through it: today's
/// exports skip it and pay nothing.
public struct AttributeNameRepair {
    private enum State {
        case text, afterLessThan, skipping, elementName, betweenAttributes, attributeName
        case afterAttributeName, beforeValue, value
    }

    private var state = State.text
    /// Inside a comment, PI, CDATA or other markup skipped whole: the bytes that end it, and how
    /// many of them were matched so far.
    private var terminator: StaticString = ">"
    private var matched = 0
    /// After `<!`: the bytes seen so far, to tell a comment or CDATA from a declaration.
    private var markupStart: [UInt8] = []
    private var quote: UInt8 = 0
    /// Whitespace after an attribute name, held back until the next byte says what it is.
    private var heldWhitespace: [UInt8] = []
    /// Whitespace bytes that turned out to be inside a name.
    public private(set) var repairedCount = 0

    public init() {}

    /// Feeds the next bytes; `emit` receives the repaired bytes, in order.
    public mutating func process(_ input: ByteText, emit: (ByteText) throws -> Void) rethrows {
        guard let base = input.baseAddress else { return }
        let n = input.count
        var i = 0
        var runStart = 0  // start of the bytes passed through unchanged
        while i < n {
            let byte = base[i]
            switch state {
            case .text:
                guard let found = memchr(base + i, 0x3C, n - i) else { i = n; continue }
                i = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
                state = .afterLessThan
                continue
            case .afterLessThan:
                switch byte {
                case UInt8(ascii: "/"): skip(until: ">")
                case UInt8(ascii: "?"): skip(until: "?>")
                case UInt8(ascii: "!"): markupStart = []; skip(until: ">"); state = .skipping; matched = -1
                default: state = .elementName
                }
            case .skipping:
                if matched < 0 {
                    // Right after `<!`: a comment and a CDATA section end differently from a declaration.
                    markupStart.append(byte)
                    if markupStart == Array("--".utf8) { skip(until: "-->") } else if markupStart == Array("[CDATA[".utf8) {
                        skip(until: "]]>")
                    } else if !(Array("--".utf8).starts(with: markupStart) || Array("[CDATA[".utf8).starts(with: markupStart)) {
                        skip(until: ">")
                        advanceTerminator(byte)
                    }
                } else {
                    advanceTerminator(byte)
                }
            case .elementName:
                if Self.isWhitespace(byte) { state = .betweenAttributes } else if byte == UInt8(ascii: ">") { state = .text }
            case .betweenAttributes:
                if byte == UInt8(ascii: ">") {
                    state = .text
                } else if !Self.isWhitespace(byte), byte != UInt8(ascii: "/") {
                    state = byte == UInt8(ascii: "=") ? .beforeValue : .attributeName
                }
            case .attributeName:
                if byte == UInt8(ascii: "=") {
                    state = .beforeValue
                } else if Self.isWhitespace(byte) {
                    try emit(ByteText(start: base + runStart, count: i - runStart))
                    heldWhitespace.append(byte)
                    state = .afterAttributeName
                } else if byte == UInt8(ascii: ">") {
                    state = .text
                }
            case .afterAttributeName:
                if Self.isWhitespace(byte) {
                    heldWhitespace.append(byte)
                } else {
                    let insideName = byte != UInt8(ascii: "=") && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "/")
                    try releaseWhitespace(insideName: insideName, emit: emit)
                    runStart = i
                    state = insideName ? .attributeName : (byte == UInt8(ascii: "=") ? .beforeValue : (byte == UInt8(ascii: ">") ? .text : .betweenAttributes))
                }
            case .beforeValue:
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                    state = .value
                } else if !Self.isWhitespace(byte) {
                    state = .betweenAttributes  // not well-formed: libxml2 will say where
                }
            case .value:
                guard let found = memchr(base + i, Int32(quote), n - i) else { i = n; continue }
                i = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
                state = .betweenAttributes
                continue
            }
            i += 1
        }
        if state != .afterAttributeName, runStart < n {
            try emit(ByteText(start: base + runStart, count: n - runStart))
        }
    }

    /// Ends the stream: whitespace still held goes out as it was.
    public mutating func finish(emit: (ByteText) throws -> Void) rethrows {
        try releaseWhitespace(insideName: false, emit: emit)
    }

    private mutating func releaseWhitespace(insideName: Bool, emit: (ByteText) throws -> Void) rethrows {
        guard !heldWhitespace.isEmpty else { return }
        if insideName {
            var escaped: [UInt8] = []
            for byte in heldWhitespace { escaped.append(contentsOf: Self.escape(byte)) }
            repairedCount += heldWhitespace.count
            try escaped.withUnsafeBufferPointer { try emit($0) }
        } else {
            try heldWhitespace.withUnsafeBufferPointer { try emit($0) }
        }
        heldWhitespace.removeAll(keepingCapacity: true)
    }

    private mutating func skip(until end: StaticString) {
        terminator = end
        matched = 0
        state = .skipping
    }

    /// One more byte of skipped markup: back to text once the terminator is complete.
    private mutating func advanceTerminator(_ byte: UInt8) {
        let end = terminator.utf8Start
        let count = terminator.utf8CodeUnitCount
        if byte == end[matched] {
            matched += 1
            if matched == count { state = .text }
        } else if matched >= 2, end[matched - 1] == end[matched - 2], byte == end[matched - 1] {
            // `--->`, `]]]>`: the repeated byte keeps the match where it was.
        } else {
            matched = byte == end[0] ? 1 : 0
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `_x0020_` for a space: the escape `key` reverses.
    static func escape(_ byte: UInt8) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        return Array("_x00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)], UInt8(ascii: "_")]
    }

    /// True when `name` holds an escape that `appendKey` turns back.
    public static func holdsEscape(_ name: ByteText) -> Bool {
        guard name.count >= 7 else { return false }
        for i in 0...(name.count - 7) where name[i] == UInt8(ascii: "_") && name[i + 1] == UInt8(ascii: "x") {
            if name[i + 2] == UInt8(ascii: "0"), name[i + 3] == UInt8(ascii: "0"), name[i + 6] == UInt8(ascii: "_") { return true }
        }
        return false
    }

    /// Appends an attribute name as the file wrote it: `Some_x0020_App` → `Some App`.
    public static func appendKey(_ name: ByteText, to out: inout ByteBuffer) {
        var i = 0
        while i < name.count {
            if name[i] == UInt8(ascii: "_"), i + 7 <= name.count, name.slice(i..<(i + 4)).equals("_x00"),
               name[i + 6] == UInt8(ascii: "_"), let code = hexByte(name[i + 4], name[i + 5]), isWhitespace(code) {
                out.append(code)
                i += 7
            } else {
                out.append(name[i])
                i += 1
            }
        }
    }

    private static func hexByte(_ high: UInt8, _ low: UInt8) -> UInt8? {
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        guard let h = nibble(high), let l = nibble(low) else { return nil }
        return h << 4 | l
    }
}
