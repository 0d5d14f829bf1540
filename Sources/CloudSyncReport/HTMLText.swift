import Foundation

/// The page as it is written: a `String` of XHTML-compatible HTML (every element closed, every
/// attribute quoted), so that a strict XML parser reads it. Every text that comes from the store
/// (source names, device names, workout types: anything an export can hold) goes through
/// `escaped`: a source named `<script>` is shown, never run.
struct HTMLText {
    private(set) var text = ""

    /// `&`, `<`, `>`, `"` and `'` as entities; control characters (invalid in XML) dropped.
    static func escaped(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value): continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Text content, escaped.
    mutating func text(_ value: String) { text += Self.escaped(value) }

    /// Markup written by this module (never data).
    mutating func raw(_ markup: String) { text += markup }

    /// `<name attributes>…</name>`; attribute values are escaped.
    mutating func element(_ name: String, _ attributes: KeyValuePairs<String, String> = [:], _ body: (inout HTMLText) -> Void) {
        open(name, attributes)
        body(&self)
        text += "</\(name)>"
    }

    /// `<name attributes>text</name>`.
    mutating func element(_ name: String, _ attributes: KeyValuePairs<String, String> = [:], text value: String) {
        open(name, attributes)
        text(value)
        text += "</\(name)>"
    }

    /// `<name attributes/>`.
    mutating func empty(_ name: String, _ attributes: KeyValuePairs<String, String>) {
        text += "<\(name)"
        for (key, value) in attributes { text += " \(key)=\"\(Self.escaped(value))\"" }
        text += "/>"
    }

    private mutating func open(_ name: String, _ attributes: KeyValuePairs<String, String>) {
        text += "<\(name)"
        for (key, value) in attributes { text += " \(key)=\"\(Self.escaped(value))\"" }
        text += ">"
    }

    /// A table of rows (the numbers behind a chart), collapsed under a `<details>`.
    mutating func table(summary: String, columns: [String], rows: [[String]], id: String) {
        element("details", ["class": "numbers"]) { page in
            page.element("summary", text: summary)
            page.element("table", ["id": id]) { page in
                page.element("thead") { page in
                    page.element("tr") { page in for column in columns { page.element("th", text: column) } }
                }
                page.element("tbody") { page in
                    for row in rows {
                        page.element("tr") { page in for cell in row { page.element("td", text: cell) } }
                    }
                }
            }
        }
    }
}

/// Numbers as the page shows them: at most `digits` decimals, no trailing zeros.
func formatted(_ value: Double, digits: Int = 1) -> String {
    guard value.isFinite else { return "–" }
    let text = String(format: "%.\(digits)f", value)
    // -0.0, and negatives that round to zero, are 0.
    if text.allSatisfy({ "-0.".contains($0) }) { return "0" }
    return trimmed(text)
}

private func trimmed(_ text: String) -> String {
    guard text.contains(".") else { return text }
    var trimmed = Substring(text)
    while trimmed.last == "0" { trimmed = trimmed.dropLast() }
    if trimmed.last == "." { trimmed = trimmed.dropLast() }
    return String(trimmed)
}
