import Foundation

/// Reading back JSON the kinds wrote themselves (a stored line), where Foundation's parser would
/// lose what matters: the order of an object's members (metadata as written), and a value's own
/// text (a FHIR resource kept byte for byte). Only for well-formed JSON of our own writing.
enum OrderedJSON {
    /// The text of the top-level member `name` of the object `text`.
    static func member(_ name: String, in text: String) -> String? {
        let bytes = Array(text.utf8)
        var i = 0
        guard skipSpace(bytes, &i), bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        while skipSpace(bytes, &i), bytes[i] != UInt8(ascii: "}") {
            guard let keyEnd = endOfValue(bytes, i), let key = decodeString(bytes[i..<keyEnd]) else { return nil }
            i = keyEnd
            guard skipSpace(bytes, &i), bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            guard skipSpace(bytes, &i), let valueEnd = endOfValue(bytes, i) else { return nil }
            if key == name { return String(decoding: bytes[i..<valueEnd], as: UTF8.self) }
            i = valueEnd
            if skipSpace(bytes, &i), bytes[i] == UInt8(ascii: ",") { i += 1 }
        }
        return nil
    }

    /// The members of an object of strings, in order.
    static func stringPairs(_ text: String) -> [(key: String, value: String)]? {
        let bytes = Array(text.utf8)
        var i = 0
        var pairs: [(key: String, value: String)] = []
        guard skipSpace(bytes, &i), bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        while skipSpace(bytes, &i), bytes[i] != UInt8(ascii: "}") {
            guard let keyEnd = endOfValue(bytes, i), let key = decodeString(bytes[i..<keyEnd]) else { return nil }
            i = keyEnd
            guard skipSpace(bytes, &i), bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            guard skipSpace(bytes, &i), let valueEnd = endOfValue(bytes, i), let value = decodeString(bytes[i..<valueEnd]) else { return nil }
            pairs.append((key, value))
            i = valueEnd
            if skipSpace(bytes, &i), bytes[i] == UInt8(ascii: ",") { i += 1 }
        }
        return pairs
    }

    /// Moves past whitespace; false at the end.
    private static func skipSpace(_ bytes: [UInt8], _ i: inout Int) -> Bool {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        return i < bytes.count
    }

    /// The index after the JSON value starting at `start`.
    private static func endOfValue(_ bytes: [UInt8], _ start: Int) -> Int? {
        var i = start
        var depth = 0
        var inString = false
        while i < bytes.count {
            let byte = bytes[i]
            if inString {
                if byte == UInt8(ascii: "\\") { i += 1 } else if byte == UInt8(ascii: "\"") { inString = false; if depth == 0 { return i + 1 } }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { return i }
                    depth -= 1
                    if depth == 0 { return i + 1 }
                case UInt8(ascii: ","): if depth == 0 { return i }
                default: break
                }
            }
            i += 1
        }
        return depth == 0 && !inString ? i : nil
    }

    private static func decodeString(_ token: ArraySlice<UInt8>) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(token), options: .fragmentsAllowed)) as? String
    }
}
