/// The pieces the kinds' JSON Lines and CSV writers are made of, written from values into a reused
/// buffer (no encoder per record). JSON nulls and CSV empty cells stand for what a file does not say.
public enum RecordJSON {
    public static func appendString(_ text: String?, to out: inout ByteBuffer) {
        guard var text else { out.append("null"); return }
        text.withUTF8 { out.appendJSONString($0) }
    }

    public static func appendDate(_ seconds: Int64?, to out: inout ByteBuffer) {
        guard let seconds else { out.append("null"); return }
        out.append(UInt8(ascii: "\""))
        out.appendInPlace(UTCDateFormatter.byteCount) { UTCDateFormatter.write(seconds, to: $0) }
        out.append(UInt8(ascii: "\""))
    }

    public static func appendNumber(_ value: Double?, to out: inout ByteBuffer) {
        guard let value, value.isFinite else { out.append("null"); return }
        NumberFormatting.append(value, to: &out)
    }

    public static func appendBool(_ value: Bool?, to out: inout ByteBuffer) {
        guard let value else { out.append("null"); return }
        out.append(value ? "true" : "false")
    }

    /// `["a","b"]`.
    public static func appendStrings(_ texts: [String], to out: inout ByteBuffer) {
        out.append(UInt8(ascii: "["))
        for (i, text) in texts.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            appendString(text, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// `{"k":"v",…}`: metadata in the order written.
    public static func appendObject(_ entries: [(key: String, value: String)], to out: inout ByteBuffer) {
        out.append(UInt8(ascii: "{"))
        for (i, entry) in entries.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            appendString(entry.key, to: &out)
            out.append(UInt8(ascii: ":"))
            appendString(entry.value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}

/// CSV cells of the kinds' rows: text quoted as RFC 4180 wants, dates as in JSON Lines (UTC), numbers
/// as in JSON, and an empty cell for a value the record does not have.
extension ByteBuffer {
    public mutating func appendCSVCell(_ text: String?, first: Bool = false) {
        if !first { append(UInt8(ascii: ",")) }
        if let text { appendCSVField(text) }
    }

    public mutating func appendCSVCell(date seconds: Int64?, first: Bool = false) {
        if !first { append(UInt8(ascii: ",")) }
        if let seconds { appendInPlace(UTCDateFormatter.byteCount) { UTCDateFormatter.write(seconds, to: $0) } }
    }

    public mutating func appendCSVCell(_ value: Double?, first: Bool = false) {
        if !first { append(UInt8(ascii: ",")) }
        if let value, value.isFinite { NumberFormatting.append(value, to: &self) }
    }

    public mutating func appendCSVCell(_ value: Int64, first: Bool = false) {
        if !first { append(UInt8(ascii: ",")) }
        appendInteger(value)
    }

    public mutating func endCSVRow() { append("\r\n") }
}
