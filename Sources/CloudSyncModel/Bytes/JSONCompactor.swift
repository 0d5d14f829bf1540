/// Checks that bytes are one JSON value (RFC 8259) and writes it on one line: whitespace between
/// tokens is dropped, every string, number and literal is kept byte for byte. Nesting is bounded,
/// so a hostile file (an array nested a million deep) is an error, not a stack overflow.
///
/// Why our own: clinical records are FHIR resources that must come out unchanged but on one line
/// of JSON Lines, and the parsers at hand (Foundation's) build a tree of objects, rewrite numbers
/// and recurse without a bound.
public struct JSONCompactor {
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public var line: Int
        public var message: String
        public var description: String { line > 0 ? "line \(line): \(message)" : message }
    }

    public static let defaultMaximumDepth = 100

    /// The value on one line; a problem names the line of the input where it is.
    public static func compact(_ input: ByteText, maximumDepth: Int = defaultMaximumDepth) throws(Problem) -> [UInt8] {
        var compactor = Scanner(input: input, maximumDepth: maximumDepth)
        return try compactor.run()
    }

    /// The string value of the top-level object's member `name` in compact JSON made by `compact`
    /// (`"resourceType":"Observation"` → `Observation`), unescaped only when it needs no unescaping.
    public static func topLevelString(_ name: String, in compact: [UInt8]) -> String? {
        let key = Array("\"\(name)\":\"".utf8)
        var depth = 0
        var i = 0
        var inString = false
        while i < compact.count {
            let byte = compact[i]
            if inString {
                if byte == UInt8(ascii: "\\") { i += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
                if depth == 1, compact[(i + 1)...].starts(with: key) { return value(at: i + 1 + key.count, in: compact) }
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
            } else if byte == UInt8(ascii: ","), depth == 1, compact[(i + 1)...].starts(with: key) {
                return value(at: i + 1 + key.count, in: compact)
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            }
            i += 1
        }
        return nil
    }

    private static func value(at start: Int, in compact: [UInt8]) -> String? {
        guard let end = compact[start...].firstIndex(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }),
              compact[end] == UInt8(ascii: "\"") else { return nil }
        return String(decoding: compact[start..<end], as: UTF8.self)
    }

    private struct Scanner {
        let input: ByteText
        let maximumDepth: Int
        var i = 0
        var line = 1
        var out: [UInt8] = []

        init(input: ByteText, maximumDepth: Int) {
            self.input = input
            self.maximumDepth = maximumDepth
            out.reserveCapacity(input.count)
        }

        mutating func run() throws(Problem) -> [UInt8] {
            if input.count >= 3, input[0] == 0xEF, input[1] == 0xBB, input[2] == 0xBF { i = 3 }  // a UTF-8 byte order mark
            skipWhitespace()
            guard i < input.count else { throw fail("no JSON value (the file is empty)") }
            try value()
            skipWhitespace()
            guard i == input.count else { throw fail("more after the end of the JSON value") }
            // JSON is UTF-8 (RFC 8259 §8.1); bytes that are not would reach the output lines as they are.
            guard out.withUnsafeBufferPointer({ String(validating: $0, as: UTF8.self) }) != nil else {
                throw Problem(line: 0, message: "not UTF-8 text")
            }
            return out
        }

        func fail(_ message: String) -> Problem { Problem(line: line, message: message) }

        mutating func skipWhitespace() {
            while i < input.count {
                switch input[i] {
                case 0x0A: line += 1
                case 0x20, 0x09, 0x0D: break
                default: return
                }
                i += 1
            }
        }

        /// One value, iteratively: `stack` holds the open containers (true for an object).
        mutating func value() throws(Problem) {
            var stack: [Bool] = []
            var expectingValue = true
            while true {
                skipWhitespace()
                guard i < input.count else { throw fail("the file ends inside the JSON value") }
                if expectingValue {
                    let byte = input[i]
                    switch byte {
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        guard stack.count < maximumDepth else { throw fail("nested deeper than \(maximumDepth) levels") }
                        let isObject = byte == UInt8(ascii: "{")
                        stack.append(isObject)
                        out.append(byte)
                        i += 1
                        skipWhitespace()
                        let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                        if i < input.count, input[i] == close {
                            out.append(close)
                            i += 1
                            stack.removeLast()
                            expectingValue = false
                        } else if isObject {
                            try memberName()
                        }
                        if expectingValue { continue }
                    case UInt8(ascii: "\""): try string(); expectingValue = false
                    case UInt8(ascii: "t"): try literal("true"); expectingValue = false
                    case UInt8(ascii: "f"): try literal("false"); expectingValue = false
                    case UInt8(ascii: "n"): try literal("null"); expectingValue = false
                    default: try number(); expectingValue = false
                    }
                }
                // After a value: the end, a comma, or the container's end.
                guard let isObject = stack.last else { return }
                skipWhitespace()
                guard i < input.count else { throw fail("the file ends inside the JSON value") }
                let byte = input[i]
                if byte == UInt8(ascii: ",") {
                    out.append(byte)
                    i += 1
                    if isObject { try memberName() }
                    expectingValue = true
                } else if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    out.append(byte)
                    i += 1
                    stack.removeLast()
                    if stack.isEmpty { return }
                } else {
                    throw fail("expected ',' or '\(isObject ? "}" : "]")', found '\(Self.show(byte))'")
                }
            }
        }

        /// `"name":` inside an object.
        mutating func memberName() throws(Problem) {
            skipWhitespace()
            guard i < input.count, input[i] == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
            try string()
            skipWhitespace()
            guard i < input.count, input[i] == UInt8(ascii: ":") else { throw fail("expected ':' after a member name") }
            out.append(UInt8(ascii: ":"))
            i += 1
        }

        mutating func string() throws(Problem) {
            let start = i
            i += 1
            while i < input.count {
                let byte = input[i]
                if byte == UInt8(ascii: "\"") {
                    i += 1
                    out.append(contentsOf: input.slice(start..<i))
                    return
                }
                if byte < 0x20 { throw fail("a control character inside a string") }
                if byte == UInt8(ascii: "\\") {
                    guard i + 1 < input.count else { break }
                    switch input[i + 1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        i += 2
                    case UInt8(ascii: "u"):
                        guard i + 6 <= input.count, (2..<6).allSatisfy({ Self.isHex(input[i + $0]) }) else {
                            throw fail("a \\u escape without four hexadecimal digits")
                        }
                        i += 6
                    default:
                        throw fail("an unknown escape '\\\(Self.show(input[i + 1]))'")
                    }
                    continue
                }
                i += 1
            }
            throw fail("a string that does not end")
        }

        mutating func literal(_ word: StaticString) throws(Problem) {
            let n = word.utf8CodeUnitCount
            guard i + n <= input.count, input.slice(i..<(i + n)).equals(word) else {
                throw fail("'\(Self.show(input[i]))' does not start a JSON value")
            }
            out.append(contentsOf: input.slice(i..<(i + n)))
            i += n
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func number() throws(Problem) {
            let start = i
            if i < input.count, input[i] == UInt8(ascii: "-") { i += 1 }
            guard i < input.count, Self.isDigit(input[i]) else { throw fail("'\(Self.show(input[start]))' does not start a JSON value") }
            if input[i] == UInt8(ascii: "0") { i += 1 } else { while i < input.count, Self.isDigit(input[i]) { i += 1 } }
            if i < input.count, input[i] == UInt8(ascii: ".") {
                i += 1
                guard i < input.count, Self.isDigit(input[i]) else { throw fail("a number without digits after its '.'") }
                while i < input.count, Self.isDigit(input[i]) { i += 1 }
            }
            if i < input.count, input[i] == UInt8(ascii: "e") || input[i] == UInt8(ascii: "E") {
                i += 1
                if i < input.count, input[i] == UInt8(ascii: "+") || input[i] == UInt8(ascii: "-") { i += 1 }
                guard i < input.count, Self.isDigit(input[i]) else { throw fail("a number without digits in its exponent") }
                while i < input.count, Self.isDigit(input[i]) { i += 1 }
            }
            out.append(contentsOf: input.slice(start..<i))
        }

        static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        static func isHex(_ byte: UInt8) -> Bool {
            isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
        }
        static func show(_ byte: UInt8) -> String {
            byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "0x" + String(byte, radix: 16)
        }
    }
}
