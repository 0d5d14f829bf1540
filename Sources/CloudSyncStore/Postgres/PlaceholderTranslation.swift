/// The store's SQL names its parameters as SQLite does (`?`, `?NNN`); PostgreSQL wants `$NNN`. The
/// text is translated once, when a statement is prepared, outside string literals, quoted names and
/// comments. A bare `?` takes the number after the largest so far, as in SQLite.
enum PlaceholderTranslation {
    /// The SQL with `$NNN` parameters, and how many parameters it has.
    static func postgres(_ sql: String) -> (sql: String, parameters: Int) {
        let bytes = Array(sql.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var largest = 0
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                // A literal or quoted name, to its closing quote (a doubled quote stays inside).
                var j = i + 1
                while j < bytes.count {
                    if bytes[j] == byte {
                        if j + 1 < bytes.count && bytes[j + 1] == byte { j += 2; continue }
                        break
                    }
                    j += 1
                }
                let end = min(j + 1, bytes.count)
                out.append(contentsOf: bytes[i..<end])
                i = end
            case UInt8(ascii: "-") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "-"):
                var j = i
                while j < bytes.count && bytes[j] != UInt8(ascii: "\n") { j += 1 }
                out.append(contentsOf: bytes[i..<j])
                i = j
            case UInt8(ascii: "?"):
                var j = i + 1
                var number = 0
                while j < bytes.count, bytes[j] >= UInt8(ascii: "0"), bytes[j] <= UInt8(ascii: "9") {
                    number = number * 10 + Int(bytes[j] - UInt8(ascii: "0"))
                    j += 1
                }
                if j == i + 1 { number = largest + 1 }
                largest = max(largest, number)
                out.append(UInt8(ascii: "$"))
                out.append(contentsOf: String(number).utf8)
                i = j
            default:
                out.append(byte)
                i += 1
            }
        }
        return (String(decoding: out, as: UTF8.self), largest)
    }
}
