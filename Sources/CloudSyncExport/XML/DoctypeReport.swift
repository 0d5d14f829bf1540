import CloudSyncModel
/// What the removed DTD says: the export version (`<!-- HealthKit Export Version: 13 -->`) and
/// whether it is broken. The DTD is never used to parse; this is only reported by `inspect`.
public struct DoctypeReport: Sendable, Equatable {
    public var exportVersion: Int?
    /// Defects found by a lexical check of the internal subset, in words; empty when it is sound.
    public var defects: [String]

    public var isBroken: Bool { !defects.isEmpty }

    public init(doctypeText: [UInt8]) {
        exportVersion = Self.exportVersion(in: doctypeText)
        defects = Self.lint(doctypeText)
    }

    static func exportVersion(in text: [UInt8]) -> Int? {
        text.withUnsafeBufferPointer { bytes -> Int? in
            guard let range = bytes.firstRange(of: "Export Version:") else { return nil }
            var i = range.upperBound
            while i < bytes.count, bytes[i] == 0x20 { i += 1 }
            var version = 0, digits = 0
            while i < bytes.count, bytes[i] &- 48 < 10, digits < 6 {
                version = version * 10 + Int(bytes[i] &- 48)
                i += 1
                digits += 1
            }
            return digits > 0 ? version : nil
        }
    }

    /// Checks that declarations open and close in pairs, outside comments and quoted strings:
    /// catches both iOS 16 defects (an ATTLIST left open, a stray `>`) and similar damage.
    static func lint(_ text: [UInt8]) -> [String] {
        guard let open = text.firstIndex(of: UInt8(ascii: "[")) else { return [] }
        enum Scan { case outside, declaration, comment, quoted(UInt8) }
        var scan = Scan.outside
        var defects: [String] = []
        var i = open + 1
        var closed = false
        func at(_ literal: String, _ i: Int) -> Bool {
            let bytes = Array(literal.utf8)
            return i + bytes.count <= text.count && Array(text[i..<(i + bytes.count)]) == bytes
        }
        while i < text.count, !closed {
            let byte = text[i]
            switch scan {
            case .outside:
                if at("<!--", i) { scan = .comment; i += 3 }
                else if at("<!", i) { scan = .declaration }
                else if byte == UInt8(ascii: ">") { defects.append("a stray '>' between declarations") }
                else if byte == UInt8(ascii: "]") { closed = true }
            case .declaration:
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { scan = .quoted(byte) }
                else if byte == UInt8(ascii: ">") { scan = .outside }
                else if at("<!", i) { defects.append("a declaration without its closing '>'") }
                else if byte == UInt8(ascii: "]") {
                    defects.append("a declaration without its closing '>'")
                    closed = true
                }
            case .comment:
                if at("-->", i) { scan = .outside; i += 2 }
            case .quoted(let quote):
                if byte == quote { scan = .declaration }
            }
            i += 1
        }
        if !closed { defects.append("the internal subset is not closed with ']>'") }
        return defects
    }
}
