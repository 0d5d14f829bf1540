import CloudSyncArchive
import CloudSyncModel
/// Times of day as the phone's locale writes them in HRV beat lists: `00:20:37,80` (French),
/// `7:20:37.80 AM`, `19:20:37.8`, `7:20:37 PM`.
public enum LocaleTimeParser {
    public static func secondsSinceMidnight(_ text: String) -> Double? {
        var rest = Substring(text.trimmingSpaces)
        var pm: Bool?
        for (suffix, isPM) in [("AM", false), ("PM", true), ("am", false), ("pm", true)] where rest.hasSuffix(suffix) {
            pm = isPM
            rest = rest.dropLast(suffix.count)
            break
        }
        let parts = rest.trimmingSpaces.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let hours = Int(parts[0]), let minutes = Int(parts[1]), minutes < 60 else { return nil }
        guard let seconds = Double(parts[2].replacingComma), seconds >= 0, seconds < 61 else { return nil }
        var hour = hours
        if let pm {
            guard (1...12).contains(hours) else { return nil }
            hour = hours % 12 + (pm ? 12 : 0)
        }
        guard (0..<24).contains(hour) else { return nil }
        return Double(hour * 3600 + minutes * 60) + seconds
    }
}

extension StringProtocol {
    var trimmingSpaces: Substring {
        let s = Substring(self)
        return s.drop { $0 == " " || $0 == "\u{202F}" }.reversed().drop { $0 == " " || $0 == "\u{202F}" }.reversed().reduce(into: Substring()) { $0.append($1) }
    }
    var replacingComma: String { String(map { $0 == "," ? "." : $0 }) }
}
