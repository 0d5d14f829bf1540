import Foundation

/// Reading back JSON the kinds wrote themselves (a stored line), where Foundation's parser would
/// lose what matters: the order of an object's members (metadata as written), and a value's own
/// text (a FHIR resource kept byte for byte). Only for well-formed JSON of our own writing.
enum OrderedJSON {
    /// The text of the top-level member `name` of the object `text`.
    static func member(_ name: String, in text: String) -> String? {
        guard let member = members(text)?.first(where: { $0.key == name }) else { return nil }
        return String(decoding: member.value, as: UTF8.self)
    }

    /// The members of an object of strings, in order.
    static func stringPairs(_ text: String) -> [(key: String, value: String)]? {
        guard let members = members(text) else { return nil }
        var pairs: [(key: String, value: String)] = []
        for member in members {
            guard let value = decodeString(member.value) else { return nil }
            pairs.append((member.key, value))
        }
        return pairs
    }

    /// The top-level members of the object `text`, in order: each key, and its value as written.
    private static func members(_ text: String) -> [(key: String, value: ArraySlice<UInt8>)]? {
        let bytes = Array(text.utf8)
        var i = 0
        var members: [(key: String, value: ArraySlice<UInt8>)] = []
        guard skipSpace(bytes, &i), bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        while skipSpace(bytes, &i), bytes[i] != UInt8(ascii: "}") {
            guard let keyEnd = endOfValue(bytes, i), let key = decodeString(bytes[i..<keyEnd]) else { return nil }
            i = keyEnd
            guard skipSpace(bytes, &i), bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            guard skipSpace(bytes, &i), let valueEnd = endOfValue(bytes, i) else { return nil }
            members.append((key, bytes[i..<valueEnd]))
            i = valueEnd
            if skipSpace(bytes, &i), bytes[i] == UInt8(ascii: ",") { i += 1 }
        }
        return members
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
