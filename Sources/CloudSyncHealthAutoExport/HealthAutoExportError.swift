/// Why a Health Auto Export document was refused, with where: the JSON path of the first problem
/// (`$.data.metrics[2].data[15].date`) and, for a syntax error, the byte offset.
///
/// `malformed` is not JSON at all (HTTP 400); `shape` is JSON that is not what the app writes (HTTP 422).
/// Nothing of a refused document is kept.
public struct HealthAutoExportError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Not well-formed JSON (RFC 8259), or too deep.
        case malformed
        /// Well-formed, but not Health Auto Export's shape (`metrics` not an array, a date that does not
        /// parse, a value that is not a number).
        case shape
        /// The input could not be read.
        case unreadable
    }

    public var kind: Kind
    /// The input as messages name it (a file, `the request`).
    public var input: String
    /// `$` for the document, `$.data.metrics[0].name` …
    public var path: String
    /// Byte offset of a syntax error.
    public var offset: Int?
    public var problem: String

    public init(kind: Kind, input: String, path: String, offset: Int? = nil, problem: String) {
        self.kind = kind
        self.input = input
        self.path = path
        self.offset = offset
        self.problem = problem
    }

    public var description: String {
        switch kind {
        case .unreadable: return "\(input): cannot read: \(problem)"
        case .malformed: return "\(input): not valid JSON at \(path)\(offset.map { " (byte \($0))" } ?? ""): \(problem)"
        case .shape: return "\(input): not a Health Auto Export document at \(path): \(problem)"
        }
    }
}
