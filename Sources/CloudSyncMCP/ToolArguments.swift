import CloudSyncModel
import Foundation
import MCP

/// A tool call the server refuses: said to the assistant as a tool error (`isError`), never a
/// protocol failure, so the conversation and the server go on.
struct ToolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A call's arguments, read with their types checked: a wrong type or a bad value is a `ToolError`
/// that names the argument.
struct ToolArguments {
    let values: [String: Value]

    init(_ values: [String: Value]?) { self.values = values ?? [:] }

    func string(_ name: String) throws -> String? {
        guard let value = values[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw ToolError("\(name) must be a string, not \(value)") }
        return text
    }

    func requiredString(_ name: String) throws -> String {
        guard let text = try string(name), !text.isEmpty else { throw ToolError("\(name) is required") }
        return text
    }

    func bool(_ name: String, default fallback: Bool) throws -> Bool {
        guard let value = values[name], !value.isNull else { return fallback }
        guard let flag = value.boolValue else { throw ToolError("\(name) must be true or false, not \(value)") }
        return flag
    }

    /// A whole number within `range`; a larger one is refused (not silently clipped) so the caller knows.
    func int(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let value = values[name], !value.isNull else { return fallback }
        let number: Int
        if let int = value.intValue {
            number = int
        } else if let double = value.doubleValue, double == double.rounded(), abs(double) < 1e15 {
            number = Int(double)
        } else {
            throw ToolError("\(name) must be a whole number, not \(value)")
        }
        guard range.contains(number) else { throw ToolError("\(name) must be between \(range.lowerBound) and \(range.upperBound), not \(number)") }
        return number
    }

    func object(_ name: String) throws -> ToolArguments {
        guard let value = values[name], let object = value.objectValue else { throw ToolError("\(name) must be an object {start, end}") }
        return ToolArguments(object)
    }

    func timeZone(_ name: String) throws -> TimeZone? {
        guard let identifier = try string(name), identifier != "UTC" else { return nil }
        guard let zone = TimeZone(identifier: identifier) else {
            throw ToolError("\(name) '\(identifier)' is not a time zone: use an IANA name such as Europe/Paris")
        }
        return zone
    }

    /// `start` and `end` as instants: a date (`2024-03-01`) is that day's local midnight in `zone`,
    /// and an `end` date is inclusive (up to the next midnight); a date-time (`2024-03-01T08:00:00Z`,
    /// with `Z` or an offset) is exact and an `end` date-time exclusive.
    func range(zone: TimeZone?, startName: String = "start", endName: String = "end") throws -> (since: Int64?, until: Int64?) {
        let since = try string(startName).map { try Self.instant($0, name: startName, zone: zone, isEnd: false) }
        let until = try string(endName).map { try Self.instant($0, name: endName, zone: zone, isEnd: true) }
        if let since, let until, until <= since { throw ToolError("\(endName) must come after \(startName)") }
        if let since, let until, until - since > Self.longestRange {
            throw ToolError("a range of more than 200 years is not a question about one life's data: narrow \(startName)…\(endName)")
        }
        return (since, until)
    }

    static let longestRange: Int64 = 200 * 366 * 86_400

    static func instant(_ text: String, name: String, zone: TimeZone?, isEnd: Bool) throws -> Int64 {
        var copy = text
        if text.count == 10, let day = copy.withUTF8({ ExportDateParser.dayStartSeconds($0) }) {
            let midnight = localMidnight(utcDay: day + (isEnd ? 86_400 : 0), zone: zone)
            return midnight
        }
        guard let seconds = copy.withUTF8({ ExportDateParser.epochSeconds($0) }) else {
            throw ToolError("\(name) '\(text)' is not an ISO 8601 date (2024-03-01) or date-time (2024-03-01T08:00:00Z)")
        }
        return seconds
    }

    /// The whole day `text` names in `zone` when it is a date (`2024-10-21`); nil for a date-time.
    static func dayRange(_ text: String, name: String, zone: TimeZone?) throws -> (since: Int64, until: Int64)? {
        var copy = text
        guard text.count == 10, copy.withUTF8({ ExportDateParser.dayStartSeconds($0) }) != nil else { return nil }
        return (try instant(text, name: name, zone: zone, isEnd: false), try instant(text, name: name, zone: zone, isEnd: true))
    }

    /// The first instant, in `zone`, of the calendar day whose UTC midnight is `utcDay`: its local
    /// midnight, or, where DST starts at midnight (Santiago, Havana), the moment the day begins at 01:00.
    static func localMidnight(utcDay: Int64, zone: TimeZone?) -> Int64 {
        guard let zone else { return utcDay }
        func offset(_ instant: Int64) -> Int64 { Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))) }
        // The day's midnight under each offset in force around it; the earliest that is in the day.
        let candidates = Set([utcDay - offset(utcDay - 14 * 3600), utcDay - offset(utcDay + 14 * 3600)]).sorted()
        for instant in candidates where instant + offset(instant) >= utcDay { return instant }
        return candidates.last!
    }
}
