import CloudSyncModel

/// The dates the upload contracts send, as the store keeps them (seconds since 1970 UTC):
/// `2024-05-01T08:00:00Z` (CloudCare), `2025-05-11T16:27:22.000Z` (Flō, steps), or with an offset
/// (`+02:00`). A fraction of a second is dropped (the store's dates, like the export's, are whole
/// seconds, and the uploaders send `.000`).
enum ReceivedDate {
    static func seconds(_ text: String) -> Int64? {
        var bytes = Array(text.utf8)
        // `yyyy-MM-ddTHH:mm:ss` is 19 bytes; a fraction follows it.
        if bytes.count > 20, bytes[19] == UInt8(ascii: ".") {
            var end = 20
            while end < bytes.count, bytes[end] >= UInt8(ascii: "0"), bytes[end] <= UInt8(ascii: "9") { end += 1 }
            guard end > 20 else { return nil }
            bytes.removeSubrange(19..<end)
        }
        guard bytes.count > 19, bytes[10] == UInt8(ascii: "T") else { return nil }
        return bytes.withUnsafeBufferPointer { ExportDateParser.epochSeconds($0) }
    }
}
