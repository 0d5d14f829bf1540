import CloudSyncModel
/// Reading the members of the app's smaller arrays (medications, State of Mind, symptoms, cycle
/// tracking, ECGs, heart-rate notifications): a few hundred items a file, read into Swift values.
/// The app is loose about types here (real files differ from its documentation, Health Auto Export
/// issues 66–70), so a member is taken in the forms seen: a text or a number, a date as the app
/// writes it, as ISO 8601 (State of Mind) or as seconds (the points of a notification).
extension JSONCursor {
    /// A string, or a number's text (an object or array as its JSON); nil for `null`.
    mutating func text() throws -> String? {
        switch try peekKind() {
        case .null: _ = try null(); return nil
        case .number: return try numberText().string
        case .bool: return try bool() ? "true" : "false"
        case .object, .array: return try captureValue().string
        case .string: return try string().string
        }
    }

    /// A number, or a string holding one; nil for `null` or a string that is not a number.
    mutating func looseNumber() throws -> Double? {
        switch try peekKind() {
        case .null: _ = try null(); return nil
        case .string: return Double(try string().string.trimmingSpaces)
        default: return try number()
        }
    }

    /// A boolean, or 0/1, or "true"/"false"; nil for `null`.
    mutating func looseBool() throws -> Bool? {
        switch try peekKind() {
        case .null: _ = try null(); return nil
        case .bool: return try bool()
        case .number: return try number() != 0
        default:
            let text = try string().string.lowercased()
            return text == "true" || text == "yes" || text == "1"
        }
    }

    /// An array of strings (labels, associations); other values are skipped.
    mutating func strings() throws -> [String] {
        if try null() { return [] }
        var texts: [String] = []
        try array { cursor, _ in if let text = try cursor.text() { texts.append(text) } }
        return texts
    }

    /// A date: the app's `2024-02-06 14:30:00 -0800`, ISO 8601 (`2026-05-05T02:35:56Z`), or seconds
    /// since 1970 (a number); nil for `null`. The UTC offset it was written with, where it has one.
    mutating func instant(_ member: String) throws -> LocalDate? {
        switch try peekKind() {
        case .null: _ = try null(); return nil
        case .number:
            let seconds = try number()
            guard seconds.magnitude < 1e11 else { throw shape("\(member) \(seconds) is not a date in seconds") }
            return LocalDate(utc: Int64(seconds.rounded(.down)), offset: 0)
        default:
            let text = try string()
            return try date(text, member)
        }
    }

    /// The source of an item: a name, or an object `{name, identifier}` (heart-rate notifications).
    mutating func sourceName() throws -> String? {
        guard try peekKind() == .object else { return try text() }
        var name: String?
        try object { cursor, key in
            if key.equals("name") { name = try cursor.text() } else { try cursor.skipValue() }
        }
        return name
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }
}

extension LocalDate {
    /// `+01:00`, `-08:00`: the offset as written in JSON Lines.
    var offsetText: String {
        let minutes = abs(offset) / 60
        let sign = offset < 0 ? "-" : "+"
        let hours = minutes / 60, rest = minutes % 60
        return "\(sign)\(hours < 10 ? "0" : "")\(hours):\(rest < 10 ? "0" : "")\(rest)"
    }
}
