/// Where records of every kind go: JSON Lines, CSV, GeoJSON, the store, a counter. A sink writes
/// any kind through `RecordKind`; one that cannot (GeoJSON takes routes only) says so by throwing.
public protocol RecordSink: AnyObject {
    func write<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws
    /// After the last record, when the input was read completely.
    func finish() throws
}

/// A sink that takes a record's JSON line as it was written before (a kind the store keeps as
/// its JSON line): the bytes go out as stored, not parsed and written again.
public protocol RecordLineSink: RecordSink {
    /// `line` is the record's JSON line without its newline.
    func write<Kind: RecordKind>(line: ByteText, as kind: Kind.Type) throws
}

/// A sink that may already hold the record an archive's file gives (a store that imported the same
/// export before): the file is then not read again. Why: reading a route's GPX file again to find
/// every point stored costs as much as parsing a seventh of export.xml (the 1 GB generated export
/// holds 148 MB of GPX beside its 1.07 GB export.xml; 646 M of the 48 MB export's 6.2 G instructions
/// of a second import).
public protocol FileRecordSink: RecordSink {
    /// The counts of the record kept from the archive file `path` (the path as its kind names it:
    /// `workout-routes/route_1.gpx`), which the sink then counts as given again and already held;
    /// nil when the file must be read.
    func alreadyHolds<Kind: RecordKind>(file path: String, as kind: Kind.Type) throws -> RecordCount?
}

/// A sink that takes an archive file's record before what links it is read (a route before its
/// workout, which export.xml lists after its records) and links it afterwards: a store, which so
/// writes a route's points beside the parse instead of after it. The order of its records is then
/// the order they were written in, not export.xml's (`convert` keeps that).
public protocol LinkingRecordSink: FileRecordSink {
    /// False when records are to be written linked, as they come after export.xml.
    var writesBeforeLink: Bool { get }
    /// Gives a record written before its link the link found since (the record is found by its key).
    func relink<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws
}

/// Records as JSON Lines (`convert --kind …`, `export --kind …`).
public final class RecordLinesSink: RecordLineSink {
    private let output: OutputFile
    public init(output: OutputFile) { self.output = output }

    public func write<Kind: RecordKind>(line: ByteText, as kind: Kind.Type) throws {
        output.buffer.append(line)
        output.buffer.append(UInt8(ascii: "\n"))
        try output.flushIfFull()
    }

    public func write<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws {
        Kind.appendJSONLines(record, to: &output.buffer)
        try output.flushIfFull()
    }

    public func finish() throws { try output.finish() }
}

/// Records of one kind as CSV: the kind's header, then its rows (`--format csv`). The header is
/// written at once, so that an output without records still names its columns.
public final class RecordCSVSink: RecordSink {
    private let output: OutputFile

    public init(output: OutputFile, columns: [String]) {
        self.output = output
        output.buffer.appendCSVRow(columns)
    }

    public func write<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws {
        Kind.appendCSVRows(record, to: &output.buffer)
        try output.flushIfFull()
    }

    public func finish() throws { try output.finish() }
}

/// Counts records per kind and keeps none (`inspect`).
public final class CountingRecordSink: RecordSink {
    public private(set) var counts: [String: RecordCount] = [:]
    public init() {}
    public func write<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws {
        counts[Kind.name, default: RecordCount()].add(record, of: Kind.self)
    }
    public func finish() throws {}
}

/// The records of one kind, to `sink`; the input's other kinds are not written (`convert --kind
/// ecg` of a file with routes writes no route under the ECG header). Counts what it passed.
public final class OneKindSink: RecordSink {
    public let kind: String
    private let sink: any RecordSink
    public private(set) var count = RecordCount()

    public init(kindNamed name: String, to sink: any RecordSink) {
        kind = name
        self.sink = sink
    }

    public func write<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws {
        guard Kind.name == self.kind else { return }
        count.add(record, of: Kind.self)
        try sink.write(record, as: kind)
    }

    public func finish() throws { try sink.finish() }
}
