import ArgumentParser
import CloudSyncModel
import Foundation

/// `--types`, `--since`, `--until`, shared by the commands that read metrics. Every mistake is
/// caught in `validate()` (so the message comes with the command's own usage), never turned into a
/// run that silently keeps nothing.
struct FilterOptions: ParsableArguments {
    @Option(name: .long,
            help: ArgumentHelp("Keep only these types: short names (heartRate, stepCount, sleepAnalysis, workout), identifiers (HKQuantityTypeIdentifierHeartRate) or everyday names (steps, sleep, hr, hrv, weight), in any case, separated by commas or spaces; the option can be repeated.",
                               valueName: "types"))
    var types: [String] = []

    @Option(help: "Keep metrics starting at or after this date: 2024-01-01 (midnight, in --tz where the command has it, else UTC), 2024-01-01T08:00:00Z or 2024-01-01 08:00:00 +0100.")
    var since: String?

    @Option(help: "Keep metrics starting before this date, which is not included: --until 2024-02-01 ends with January 31 (same forms as --since).")
    var until: String?

    /// The names given to `--types`, split on commas and spaces.
    var typeNames: [String] {
        types.flatMap { $0.split(whereSeparator: { $0 == "," || $0.isWhitespace }) }.map(String.init)
    }

    func validate() throws {
        _ = try shortTypeNames(warning: true)
        let start = try since.map { try Self.parseDate($0, option: "--since") }
        let end = try until.map { try Self.parseDate($0, option: "--until") }
        if let start, let end, start >= end {
            throw ValidationError("--since (\(since!)) is not before --until (\(until!)): no metric could match")
        }
    }

    /// The filter; `zone` is where a date without a time is a midnight (aggregate's and report's --tz).
    func makeFilter(zone: TimeZone? = nil) throws -> MetricFilter {
        MetricFilter(types: try shortTypeNames(),
                     since: try since.map { try Self.parseDate($0, option: "--since", zone: zone) },
                     until: try until.map { try Self.parseDate($0, option: "--until", zone: zone) })
    }

    /// `--types` as short names (nil: every type). Every name is a type, or the run stops here with
    /// the closest names: a run that keeps nothing because of a typo looks like an empty export.
    func shortTypeNames(warning: Bool = false) throws -> [String]? {
        guard !types.isEmpty else { return nil }
        let names = typeNames
        guard !names.isEmpty else {
            throw ValidationError("--types names no type (give one or more, like --types heartRate,steps; leave the option out for every type)")
        }
        return try names.map { try Self.shortTypeName($0, warning: warning) }
    }

    static func shortTypeName(_ name: String, warning: Bool) throws -> String {
        if let known = TypeNames.canonical(name) {
            if let members = correlationMembers[known] {
                throw ValidationError("--types: '\(name)' is a correlation, not a metric: its samples are the metrics \(members) "
                                      + "(--types \(members.replacingOccurrences(of: " and ", with: ","))); --kind correlations gives the correlations themselves")
            }
            return known
        }
        let suggestions = KnownTypes.closest(to: TypeNames.key(name), count: 3)
        let looksLikeIdentifier = name.hasPrefix("HK") && name.contains("TypeIdentifier")
        if looksLikeIdentifier && suggestions.isEmpty {
            // An identifier Apple added after this release: keep it, but say so (once).
            if warning { printError("warning: --types \(name) is not a type this cloudsync knows; it is kept as given") }
            return MetricFilter.shortName(name)
        }
        var message = "--types: '\(name)' is not a type"
        if !suggestions.isEmpty { message += "; did you mean \(suggestions.joined(separator: ", "))?" }
        throw ValidationError(message + " (see --help for the forms a type takes)")
    }

    /// The correlation types a user may name, and the metrics that hold their samples.
    static let correlationMembers = [
        "bloodPressure": "bloodPressureSystolic and bloodPressureDiastolic",
        "food": "the dietary types (dietaryEnergyConsumed, dietaryProtein, …)",
    ]

    static let dateForms = "2024-01-01 (midnight), 2024-01-01T08:00:00Z or 2024-01-01 08:00:00 +0100"

    /// `text` as seconds since 1970. A date without a time is that day's midnight in `zone` (UTC when
    /// nil); a date-time must say its zone. A fraction of a second is rounded up: samples start on
    /// whole seconds, and `--since 08:00:00.5` keeps none that started at 08:00:00.
    static func parseDate(_ text: String, option: String, zone: TimeZone? = nil) throws -> Int64 {
        let (whole, fraction) = splitFraction(text)
        var copy = whole
        let seconds = copy.withUTF8 { bytes in
            bytes.count == 10 ? ExportDateParser.dayStartSeconds(bytes) : ExportDateParser.epochSeconds(bytes)
        }
        var day = String(whole.prefix(10))
        if whole.count > 10 && !hasZone(whole), day.withUTF8({ ExportDateParser.dayStartSeconds($0) }) != nil {
            throw ValidationError("\(option) '\(text)' has no time zone: add Z for UTC or an offset (2024-01-01T08:00:00+01:00, 2024-01-01 08:00:00 +0100)")
        }
        guard let seconds else {
            throw ValidationError("\(option) '\(text)' is not a date: use \(dateForms)")
        }
        if whole.count == 10, let zone { return ZonedDay.midnight(utcMidnight: seconds, in: zone) }
        return seconds + (fraction ? 1 : 0)
    }

    /// `2024-01-01T08:00:00.250Z` → (`2024-01-01T08:00:00Z`, true): the fraction's digits cut out.
    private static func splitFraction(_ text: String) -> (String, Bool) {
        guard text.count > 20, let dot = text.firstIndex(of: "."), text.distance(from: text.startIndex, to: dot) == 19 else { return (text, false) }
        let digits = text[text.index(after: dot)...].prefix { $0.isNumber }
        guard !digits.isEmpty else { return (text, false) }
        let rest = text[text.index(dot, offsetBy: digits.count + 1)...]
        return (String(text[..<dot]) + rest, digits.contains { $0 != "0" })
    }

    /// True when a date-time ends with `Z` or carries a `+hh`/`-hh` offset after the time.
    private static func hasZone(_ text: String) -> Bool {
        let time = text.dropFirst(11)
        return text.hasSuffix("Z") || text.hasSuffix("z") || time.contains("+") || time.contains("-")
    }
}

/// A calendar day's first instant in a zone (a day where the clocks change at midnight starts at 01:00).
enum ZonedDay {
    static func midnight(utcMidnight seconds: Int64, in zone: TimeZone) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let day = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        calendar.timeZone = zone
        guard let date = calendar.date(from: day) else { return seconds }
        return Int64(calendar.startOfDay(for: date).timeIntervalSince1970)
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("cloudsync: \(message)\n".utf8))
}

/// `--tz`: an IANA zone name as a person types it. The exact name, else the one name that matches
/// ignoring case (`europe/paris`); anything else is refused with the closest names.
enum ZoneName {
    /// `option` names where the zone was given: `--tz` on the command line, the `tz` parameter of
    /// `GET /report` (a request gets no word about flags).
    static func resolve(_ name: String?, option: String = "--tz") throws -> TimeZone? {
        guard let name else { return nil }
        if let zone = TimeZone(identifier: name) { return zone }
        let known = TimeZone.knownTimeZoneIdentifiers
        let same = known.filter { $0.caseInsensitiveCompare(name) == .orderedSame }
        if same.count == 1, let zone = TimeZone(identifier: same[0]) { return zone }
        let limit = max(2, name.count / 4)
        var scored: [(name: String, distance: Int)] = []
        for candidate in known {
            let distance = EditDistance.between(name, candidate)
            if distance <= limit { scored.append((candidate, distance)) }
        }
        scored.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.name < $1.name }
        let closest = scored.prefix(3).map(\.name)
        var message = "\(option) '\(name)' is not a time zone"
        if !closest.isEmpty { message += "; did you mean \(closest.joined(separator: ", "))?" }
        throw ValidationError(message + " (an IANA name like Europe/Paris or America/New_York; UTC for UTC)")
    }
}

/// A value of a fixed set of lower-case names, taken in any case (`--format CSV`, `--bucket Day`,
/// `--target CloudCare`): each is unambiguous, as `--types Steps` and `--tz europe/paris` are.
protocol CaseInsensitiveArgument: ExpressibleByArgument, RawRepresentable where RawValue == String {}

extension CaseInsensitiveArgument {
    init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}
