import NIOCore

/// Rows in the text format of PostgreSQL's `COPY … FROM STDIN` (tab between fields, a newline after
/// each row, `\N` for NULL), for a batch of rows sent in one `COPY` into a staging table rather than
/// as arrays unnested by an `INSERT` (`PostgresReceiverStorage`). Text is escaped as the format
/// asks: backslash, tab, newline and carriage return.
struct PostgresCopyText {
    private(set) var buffer: ByteBuffer
    private var startsRow = true

    init(capacity: Int = 1 << 16) { buffer = ByteBufferAllocator().buffer(capacity: capacity) }

    mutating func add(_ text: String) {
        separate()
        var text = text
        text.withUTF8 { bytes in
            var clean = 0
            for (index, byte) in bytes.enumerated() {
                let escaped: UInt8
                switch byte {
                case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
                case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
                case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
                case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
                default: continue
                }
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[clean..<index]))
                buffer.writeInteger(UInt8(ascii: "\\"))
                buffer.writeInteger(escaped)
                clean = index + 1
            }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[clean...]))
        }
    }

    /// A double as PostgreSQL reads it back to the same value (Swift's shortest round-trip digits).
    mutating func add(_ value: Double) {
        separate()
        if value.isNaN {
            buffer.writeString("NaN")
        } else if value.isInfinite {
            buffer.writeString(value < 0 ? "-Infinity" : "Infinity")
        } else {
            buffer.writeString(value.description)
        }
    }

    mutating func addNull() {
        separate()
        buffer.writeString("\\N")
    }

    mutating func endRow() {
        buffer.writeInteger(UInt8(ascii: "\n"))
        startsRow = true
    }

    private mutating func separate() {
        if !startsRow { buffer.writeInteger(UInt8(ascii: "\t")) }
        startsRow = false
    }
}
