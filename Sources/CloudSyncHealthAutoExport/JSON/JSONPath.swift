import Foundation
/// Where the reader is in the document, as `$.data.metrics[3].data[120].date`: kept as a stack of
/// parts and written out only when a problem is reported.
package struct JSONPath {
    package enum Part {
        case key(String)
        case index(Int)
    }

    private(set) var parts: [Part] = []

    package init() {}

    mutating func push(_ part: Part) { parts.append(part) }
    mutating func pop() { parts.removeLast() }

    /// Replaces the innermost index (the next element of an array).
    mutating func setIndex(_ index: Int) {
        parts[parts.count - 1] = .index(index)
    }

    package var description: String {
        var text = "$"
        for part in parts {
            switch part {
            case .key(let key):
                if key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) && !key.isEmpty {
                    text += "." + key
                } else {
                    text += "[\"" + key.replacingOccurrences(of: "\"", with: "\\\"") + "\"]"
                }
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}
