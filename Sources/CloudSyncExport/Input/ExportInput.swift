/// What an export is read from: a path (`-`: standard input), or a stream another part of the
/// program already holds open (the body of a request, arriving through a socket), named for messages.
public struct ExportInput: Sendable {
    /// The path to open; for a stream, its name.
    public let path: String
    /// An open descriptor to read from instead of opening `path`; the caller keeps it and closes it.
    public let descriptor: Int32?
    /// The input as messages say it: `standard input`, the path, or the stream's name.
    public let name: String

    /// A file, or standard input (`-`).
    public init(path: String) {
        self.path = path
        descriptor = nil
        name = path == "-" ? "standard input" : path
    }

    /// A stream read from start to end as it comes (never seeked), such as a socket.
    public static func stream(descriptor: Int32, name: String) -> ExportInput { ExportInput(path: name, descriptor: descriptor, name: name) }

    private init(path: String, descriptor: Int32?, name: String) {
        self.path = path
        self.descriptor = descriptor
        self.name = name
    }

    /// Whether it is standard input.
    var isStandardInput: Bool { descriptor == nil && path == "-" }
}
