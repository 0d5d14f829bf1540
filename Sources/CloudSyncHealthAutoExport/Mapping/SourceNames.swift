import CloudSyncModel
/// The app joins the sources of a summarised point with `|` (`iPhone|Zoë’s Apple Watch`): the first
/// named one is the sample's `sourceApp`, all of them go to metadata `sources`. A point without a
/// source (missing, null, empty) is Health Auto Export's own.
struct SourceNames {
    static let fallback: StaticString = "Health Auto Export"

    /// The first non-empty part.
    var first: ByteText
    /// More than one part: all, joined with ", " (in the arena).
    var all: ByteText?
    /// `Apple Watch`, `iPhone` or `Unknown`, guessed from the names (the app gives no device).
    var device: StaticString

    init(_ written: ByteText?, arena: TextArena) {
        var parts: [ByteText] = []
        if let written, written.count > 0 {
            var start = 0
            for i in 0...written.count where i == written.count || written[i] == UInt8(ascii: "|") {
                let part = Self.trimmed(written.slice(start..<i))
                if part.count > 0 { parts.append(part) }
                start = i + 1
            }
        }
        first = parts.first ?? ByteText(literal: Self.fallback)
        if parts.count > 1 {
            let total = parts.reduce(0) { $0 + $1.count + 2 }
            all = arena.write(upTo: total) { out in
                var n = 0
                for (i, part) in parts.enumerated() {
                    if i > 0 { out[n] = UInt8(ascii: ","); out[n + 1] = 0x20; n += 2 }
                    out.advanced(by: n).update(from: part.baseAddress!, count: part.count)
                    n += part.count
                }
                return n
            }
        }
        if parts.contains(where: { $0.contains("Watch") }) {
            device = "Apple Watch"
        } else if parts.contains(where: { $0.contains("iPhone") }) {
            device = "iPhone"
        } else {
            device = "Unknown"
        }
    }

    private static func trimmed(_ text: ByteText) -> ByteText {
        var start = 0, end = text.count
        while start < end, text[start] == 0x20 { start += 1 }
        while end > start, text[end - 1] == 0x20 { end -= 1 }
        return text.slice(start..<end)
    }
}
