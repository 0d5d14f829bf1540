public import CloudSyncModel
/// Times of day as the phone's locale writes them in HRV beat lists: `00:20:37,80` (French),
/// `7:20:37.80 AM`, `19:20:37.8`, `7:20:37 PM`, with a narrow no-break space before AM/PM on newer
/// iOS. Parsed from bytes: a 3 GB export holds about a million beats.
public enum LocaleTimeParser {
    public static func secondsSinceMidnight(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { secondsSinceMidnight($0) }
    }

    public static func secondsSinceMidnight(_ text: ByteText) -> Double? {
        var end = text.count
        var start = 0
        func isSpace(_ i: Int) -> Int {   // the width of a space at i (ASCII space or U+202F), else 0
            if text[i] == 0x20 { return 1 }
            if i + 2 < text.count, text[i] == 0xE2, text[i + 1] == 0x80, text[i + 2] == 0xAF { return 3 }
            return 0
        }
        while start < end, isSpace(start) > 0 { start += isSpace(start) }
        while end > start, text[end - 1] == 0x20 || (end >= 3 && text[end - 3] == 0xE2 && text[end - 2] == 0x80 && text[end - 1] == 0xAF) {
            end -= text[end - 1] == 0x20 ? 1 : 3
        }
        var pm: Bool?
        if end - start >= 2, text[end - 1] | 0x20 == UInt8(ascii: "m") {
            let marker = text[end - 2] | 0x20
            if marker == UInt8(ascii: "a") || marker == UInt8(ascii: "p") {
                pm = marker == UInt8(ascii: "p")
                end -= 2
                while end > start, text[end - 1] == 0x20 || (end >= 3 && text[end - 3] == 0xE2 && text[end - 2] == 0x80 && text[end - 1] == 0xAF) {
                    end -= text[end - 1] == 0x20 ? 1 : 3
                }
            }
        }
        var i = start
        func integer(maxDigits: Int) -> Int? {
            var value = 0, digits = 0
            while i < end, digits < maxDigits, text[i] >= 0x30, text[i] <= 0x39 {
                value = value * 10 + Int(text[i] - 0x30)
                i += 1
                digits += 1
            }
            return digits == 0 ? nil : value
        }
        guard let hours = integer(maxDigits: 2), i < end, text[i] == UInt8(ascii: ":") else { return nil }
        i += 1
        guard let minutes = integer(maxDigits: 2), minutes < 60, i < end, text[i] == UInt8(ascii: ":") else { return nil }
        i += 1
        guard let whole = integer(maxDigits: 2), whole < 61 else { return nil }
        var seconds = Double(whole)
        if i < end, text[i] == UInt8(ascii: ".") || text[i] == UInt8(ascii: ",") {
            i += 1
            var scale = 0.1
            var digits = 0
            while i < end, text[i] >= 0x30, text[i] <= 0x39, digits < 9 {
                seconds += Double(text[i] - 0x30) * scale
                scale /= 10
                i += 1
                digits += 1
            }
            guard digits > 0 else { return nil }
        }
        guard i == end else { return nil }
        var hour = hours
        if let pm {
            guard (1...12).contains(hours) else { return nil }
            hour = hours % 12 + (pm ? 12 : 0)
        }
        guard (0..<24).contains(hour) else { return nil }
        return Double(hour * 3600 + minutes * 60) + seconds
    }
}
