
/// Where the rows of one import come from, said when the import begins: it decides how the rows
/// are written (an export's rows are the truth up to its date; pushed rows count only where no
/// export does, docs/store.md "Two sources") and how the import commits (an export in chunks, a
/// document of the phone all at once).
public struct ImportOrigin: Sendable {
    public enum Source: Sendable, Equatable {
        /// An Apple Health export (export.zip, export.xml, standard input).
        case export
        /// A Health Auto Export document: a push's body or a file, with how it came.
        case healthAutoExport(PushDetails)
    }

    /// The input as messages name it (`standard input`, a path, `the request`).
    public var input: String
    /// Its size in bytes, when known.
    public var size: Int64?
    public var source: Source

    public init(input: String, size: Int64?, source: Source) {
        self.input = input
        self.size = size
        self.source = source
    }

    /// Whether its rows are pushed rows (`metric.origin` 1).
    var isPushed: Bool { if case .healthAutoExport = source { true } else { false } }

    /// `import_run.source_kind`.
    var kindName: String { isPushed ? "health-auto-export" : "export" }
}

/// How a Health Auto Export document came: a push with the app's headers, or a file.
public struct PushDetails: Sendable, Equatable {
    public var via: String
    public var automationName, automationID, aggregation, period, sessionID: String?

    public init(via: String, automationName: String? = nil, automationID: String? = nil, aggregation: String? = nil,
                period: String? = nil, sessionID: String? = nil) {
        self.via = via
        self.automationName = automationName
        self.automationID = automationID
        self.aggregation = aggregation
        self.period = period
        self.sessionID = sessionID
    }

    public static let file = PushDetails(via: "file")
}
