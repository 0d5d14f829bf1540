package import CloudSyncModel
/// A JSON reader over bytes (RFC 8259) that walks the document the way the caller expects it and
/// checks every byte it passes, so that a document is either read whole or refused with the path of
/// its first problem. Strings without escapes are views of the input; values the caller does not
/// want are checked and skipped without being kept.
///
/// Foundation's `JSONSerialization` read 30,000 points/s of a 100 MB file and `JSONDecoder` 61,000,
/// both needing 3 GB (docs/health-auto-export.md); this reads the same file at millions of points/s
/// in the memory of the file.
package struct JSONCursor {
    package enum ValueKind { case string, number, object, array, bool, null }

    let input: String
    private let bytes: ByteText
    private(set) var position = 0
    var path = JSONPath()
    /// False: keys are not put on the path (a reader that names its own fields in its problems, and
    /// checked the document first: a `String` per key was a fifth of the CloudCare envelope's reading).
    package var tracksKeys = true
    let arena: TextArena
    /// Nesting of skipped values is limited: a document of a million `[` is refused, not a crash.
    static let maximumDepth = 64

    /// Where `bytes` start in the document (a part read again later reports offsets in the whole).
    let baseOffset: Int

    package init(bytes: ByteText, input: String, arena: TextArena, baseOffset: Int = 0, path: JSONPath = JSONPath()) {
        // A UTF-8 byte order mark, which RFC 8259 lets a reader ignore (some editors write one).
        if baseOffset == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        self.bytes = bytes
        self.input = input
        self.arena = arena
        self.baseOffset = baseOffset
        self.path = path
    }

    // MARK: Problems

    func malformed(_ problem: String) -> HealthAutoExportError {
        HealthAutoExportError(kind: .malformed, input: input, path: path.description, offset: baseOffset + position, problem: problem)
    }

    func shape(_ problem: String) -> HealthAutoExportError {
        HealthAutoExportError(kind: .shape, input: input, path: path.description, problem: problem)
    }

    // MARK: Structure

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    var atEnd: Bool { position >= bytes.count }

    /// What the next value is, or a syntax error when no value starts here.
    package mutating func peekKind() throws -> ValueKind {
        skipWhitespace()
        guard position < bytes.count else { throw malformed("the document ends where a value should start") }
        switch bytes[position] {
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw malformed("unexpected \(Self.describe(bytes[position])) where a value should start")
        }
    }

    /// Calls `member` with each key of the object that starts here, the cursor on its value; the
    /// closure must read or skip the value. The key is on the path meanwhile.
    package mutating func object(_ member: (inout JSONCursor, ByteText) throws -> Void) throws {
        guard try peekKind() == .object else { throw shape("expected an object, found \(try describeNext())") }
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw malformed("expected a key in quotes")
            }
            let key = try string()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw malformed("expected ':' after a key") }
            position += 1
            if tracksKeys { path.push(.key(key.string)) }
            try member(&self, key)
            if tracksKeys { path.pop() }
            skipWhitespace()
            guard position < bytes.count else { throw malformed("the document ends inside an object") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") { position += 1; return }
            throw malformed("expected ',' or '}' after an object member")
        }
    }

    /// Calls `element` with each index of the array that starts here, the cursor on the element.
    package mutating func array(_ element: (inout JSONCursor, Int) throws -> Void) throws {
        guard try peekKind() == .array else { throw shape("expected an array, found \(try describeNext())") }
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return
        }
        path.push(.index(0))
        var index = 0
        while true {
            path.setIndex(index)
            try element(&self, index)
            index += 1
            skipWhitespace()
            guard position < bytes.count else { throw malformed("the document ends inside an array") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; break }
            throw malformed("expected ',' or ']' after an array element")
        }
        path.pop()
    }

    // MARK: Scalars

    /// A string's content: a view of the input, or (with escapes) of its unescaped copy in the arena.
    package mutating func string() throws -> ByteText {
        guard try peekKind() == .string else { throw shape("expected a string, found \(try describeNext())") }
        position += 1
        let start = position
        var escaped = false
        while true {
            position += Self.plainPrefix(bytes, from: position)
            guard position < bytes.count else { throw malformed("the document ends inside a string") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { throw malformed("a control character (\(Self.describe(byte))) inside a string must be escaped") }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                position += 2   // the escape is checked when it is decoded
                continue
            }
            if byte >= 0x80 {
                try passUTF8Sequence()
                continue
            }
            position += 1
        }
        let raw = bytes.slice(start..<position)
        position += 1
        return escaped ? try unescape(raw) : raw
    }

    /// How many bytes from `start` need no look of their own: ASCII, not a control character, not
    /// `"` or `\`. Eight at a time (a word's bytes tested together): the byte-by-byte loop alone was
    /// `serve`'s largest symbol on a CloudCare upload (17% of its samples, perf), for names and dates
    /// that are plain ASCII.
    @inline(__always)
    private static func plainPrefix(_ bytes: ByteText, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var offset = start
        while offset + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
            let quotes = word ^ (ones &* 0x22), backslashes = word ^ (ones &* 0x5C)
            // Each term sets a byte's high bit where that byte is special (below 0x20, `"`, `\`, or
            // not ASCII); only the lowest set bit is exact, which is the one used.
            let special = ((word &- ones &* 0x20) | (quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes) & ~word & highs
                | word & highs
            if special != 0 { return offset - start + special.trailingZeroBitCount / 8 }
            offset += 8
        }
        return offset - start
    }

    /// One UTF-8 sequence of a string (RFC 3629: no overlong forms, no surrogates, nothing past
    /// U+10FFFF): JSON on the network is UTF-8, and a name or source that is not would be
    /// repaired silently later.
    private mutating func passUTF8Sequence() throws {
        let lead = bytes[position]
        let length: Int, lowest: UInt32
        switch lead {
        case 0xC2...0xDF: (length, lowest) = (2, 0x80)
        case 0xE0...0xEF: (length, lowest) = (3, 0x800)
        case 0xF0...0xF4: (length, lowest) = (4, 0x10000)
        default: throw malformed("byte 0x\(String(lead, radix: 16, uppercase: true)) is not UTF-8")
        }
        guard position + length <= bytes.count else { throw malformed("the document ends inside a UTF-8 sequence") }
        var scalar = UInt32(lead) & (0xFF >> (length + 1))
        for i in 1..<length {
            let next = bytes[position + i]
            guard next & 0xC0 == 0x80 else { throw malformed("byte 0x\(String(next, radix: 16, uppercase: true)) breaks a UTF-8 sequence") }
            scalar = scalar << 6 | UInt32(next & 0x3F)
        }
        guard scalar >= lowest, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
            throw malformed("an invalid UTF-8 sequence (U+\(String(scalar, radix: 16, uppercase: true)))")
        }
        position += length
    }

    /// A number's text, checked against JSON's grammar (no `+`, no leading zeros, no `.5`).
    mutating func numberText() throws -> ByteText {
        guard try peekKind() == .number else { throw shape("expected a number, found \(try describeNext())") }
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw malformed("a '-' must be followed by digits") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw malformed("a number must not start with 0") }
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw malformed("a '.' must be followed by digits") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw malformed("an exponent must have digits") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        return bytes.slice(start..<position)
    }

    /// A number as a finite Double.
    package mutating func number() throws -> Double {
        let text = try numberText()
        guard let parsed = DecimalParser.parse(text), parsed.value.isFinite else { throw shape("\(text.string) is not a finite number") }
        return parsed.value
    }

    package mutating func bool() throws -> Bool {
        if literal("true") { return true }
        if literal("false") { return false }
        throw malformed("expected true or false")
    }

    /// True (and past it) when the next value is `null`.
    package mutating func null() throws -> Bool {
        guard try peekKind() == .null else { return false }
        guard literal("null") else { throw malformed("expected null") }
        return true
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard position + n <= bytes.count, bytes.slice(position..<(position + n)).equals(word) else { return false }
        position += n
        return true
    }

    /// Checks the next value whatever it is, and passes it.
    package mutating func skipValue(depth: Int = 0) throws {
        guard depth < Self.maximumDepth else { throw malformed("nested more than \(Self.maximumDepth) levels") }
        switch try peekKind() {
        case .string: _ = try string()
        case .number: _ = try numberText()
        case .bool: _ = try bool()
        case .null: _ = try null()
        case .object: try object { cursor, _ in try cursor.skipValue(depth: depth + 1) }
        case .array: try array { cursor, _ in try cursor.skipValue(depth: depth + 1) }
        }
    }

    /// The bytes of the value that starts here (checked, `depth` levels deep in the document), to
    /// read again later.
    package mutating func captureValue(depth: Int = 0) throws -> ByteText {
        skipWhitespace()
        let start = position
        try skipValue(depth: depth)
        return bytes.slice(start..<position)
    }

    /// After the document's value: only whitespace may follow.
    package mutating func expectEnd() throws {
        skipWhitespace()
        if position < bytes.count { throw malformed("unexpected \(Self.describe(bytes[position])) after the document") }
    }

    // MARK: Helpers

    private func isDigit(_ byte: UInt8) -> Bool { byte &- 48 < 10 }

    private mutating func describeNext() throws -> String {
        switch try peekKind() {
        case .string: return "a string"
        case .number: return "a number"
        case .object: return "an object"
        case .array: return "an array"
        case .bool: return "true or false"
        case .null: return "null"
        }
    }

    static func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    /// The escapes of RFC 8259 §7, surrogate pairs joined; the result in the arena.
    private func unescape(_ raw: ByteText) throws -> ByteText {
        var failure: String?
        let text = arena.write(upTo: raw.count) { out in
            var i = 0, n = 0
            func put(_ scalar: UInt32) {
                var s = scalar
                if s < 0x80 { out[n] = UInt8(s); n += 1; return }
                if s < 0x800 { out[n] = UInt8(0xC0 | (s >> 6)); out[n + 1] = UInt8(0x80 | (s & 0x3F)); n += 2; return }
                if s < 0x10000 {
                    out[n] = UInt8(0xE0 | (s >> 12)); out[n + 1] = UInt8(0x80 | ((s >> 6) & 0x3F)); out[n + 2] = UInt8(0x80 | (s & 0x3F))
                    n += 3
                    return
                }
                s = min(s, 0x10FFFF)
                out[n] = UInt8(0xF0 | (s >> 18)); out[n + 1] = UInt8(0x80 | ((s >> 12) & 0x3F))
                out[n + 2] = UInt8(0x80 | ((s >> 6) & 0x3F)); out[n + 3] = UInt8(0x80 | (s & 0x3F))
                n += 4
            }
            func hex4(_ at: Int) -> UInt32? {
                guard at + 4 <= raw.count else { return nil }
                var value: UInt32 = 0
                for k in at..<(at + 4) {
                    let c = raw[k]
                    let digit: UInt8
                    switch c {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - 48
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - 87
                    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - 55
                    default: return nil
                    }
                    value = value << 4 | UInt32(digit)
                }
                return value
            }
            while i < raw.count {
                let c = raw[i]
                guard c == UInt8(ascii: "\\") else { out[n] = c; n += 1; i += 1; continue }
                guard i + 1 < raw.count else { failure = "a string ends with a lone '\\'"; return n }
                switch raw[i + 1] {
                case UInt8(ascii: "\""): out[n] = 0x22
                case UInt8(ascii: "\\"): out[n] = 0x5C
                case UInt8(ascii: "/"): out[n] = 0x2F
                case UInt8(ascii: "b"): out[n] = 0x08
                case UInt8(ascii: "f"): out[n] = 0x0C
                case UInt8(ascii: "n"): out[n] = 0x0A
                case UInt8(ascii: "r"): out[n] = 0x0D
                case UInt8(ascii: "t"): out[n] = 0x09
                case UInt8(ascii: "u"):
                    guard var scalar = hex4(i + 2) else { failure = "\\u must be followed by four hex digits"; return n }
                    i += 6
                    if scalar >= 0xD800 && scalar < 0xDC00, i + 1 < raw.count, raw[i] == UInt8(ascii: "\\"), raw[i + 1] == UInt8(ascii: "u"),
                       let low = hex4(i + 2), low >= 0xDC00 && low < 0xE000 {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    } else if scalar >= 0xD800 && scalar < 0xE000 {
                        scalar = 0xFFFD   // a lone surrogate: the replacement character, as String(decoding:) does
                    }
                    put(scalar)
                    continue
                default:
                    failure = "\\\(Character(Unicode.Scalar(raw[i + 1]))) is not a JSON escape"
                    return n
                }
                n += 1
                i += 2
            }
            return n
        }
        if let failure { throw malformed(failure) }
        return text
    }
}
