/// A structural error in XML (truncated, not well-formed), where the parser found it.
public struct XMLSyntaxError: Error, Sendable, Equatable {
    public var line: Int
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }
}
