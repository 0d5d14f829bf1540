import Foundation

/// ISO 8601 dates as the servers write them (`2021-12-07T00:00:00.000Z`, with or without the fraction).
enum ISODate {
    static func seconds(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text) { return Int64(date.timeIntervalSince1970) }
        return nil
    }
}
