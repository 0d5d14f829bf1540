public import CloudSyncModel

/// How a kind of record is read from an export: elements of export.xml, files of the archive, or
/// both, with linking (a route of a GPX file is linked to the workout that names it; a clinical
/// record of export.xml is joined to its FHIR file). The kinds themselves are in `CloudSyncKinds`.
public protocol ArchiveKind: RecordKind {
    /// A reader for one run: it holds what linking needs (the workouts, the clinical records).
    static func makeReader() -> any KindReader<Self>
}

/// One run's reader of one kind. An element-only kind leaves the file parts to their defaults.
public protocol KindReader<Kind>: AnyObject {
    associatedtype Kind: ArchiveKind
    /// The top-level elements of export.xml it reads.
    var elements: Set<ElementName> { get }
    /// Reads one element; `emit` writes a record now.
    func read(element tree: ElementTree, _ emit: (Kind.Record) throws -> Void) throws

    /// The archive's files of this kind; nil: none.
    var files: ArchiveFiles? { get }
    /// A reader of one file's bytes.
    func fileReader() -> any EntryReader<Kind.Record>
    /// A file's record once export.xml has been read: linked to what export.xml says of it (and
    /// emitted, possibly as several records).
    func link(_ record: Kind.Record, _ emit: (Kind.Record) throws -> Void) throws
    /// A file of this kind that could not be read (skipped; reported by the converter).
    func damaged(_ damage: EntryDamage)
    /// After every file: records still owed (clinical records whose file never came).
    func finish(_ emit: (Kind.Record) throws -> Void) throws
    /// What the run's summary adds ("3 beats skipped: a time that does not parse").
    var notes: [String] { get }

    /// True when a file's record may be written as soon as it is read, before export.xml is, and
    /// linked after (`wroteUnlinked`, `linkWritten`), to a sink that can (`LinkingRecordSink`).
    var writesBeforeLink: Bool { get }
    /// A record written so: kept (what linking needs of it) for `linkWritten`.
    func wroteUnlinked(_ record: Kind.Record)
    /// After export.xml: each record written before its link, linked, for those that found one.
    func linkWritten(_ relink: (Kind.Record) throws -> Void) throws

    /// A file's record in a run's spill (a zip from a pipe lists files before export.xml).
    func spill(_ record: Kind.Record, into writer: inout SpillWriter)
    func unspill(from reader: inout SpillReader) -> Kind.Record
}

extension KindReader {
    public var elements: Set<ElementName> { [] }
    public func read(element tree: ElementTree, _ emit: (Kind.Record) throws -> Void) throws {}
    public var files: ArchiveFiles? { nil }
    public func fileReader() -> any EntryReader<Kind.Record> {
        preconditionFailure("\(Kind.name) reads no files of the archive")
    }
    public func link(_ record: Kind.Record, _ emit: (Kind.Record) throws -> Void) throws { try emit(record) }
    public func damaged(_ damage: EntryDamage) {}
    public func finish(_ emit: (Kind.Record) throws -> Void) throws {}
    public var notes: [String] { [] }
    public var writesBeforeLink: Bool { false }
    public func wroteUnlinked(_ record: Kind.Record) {}
    public func linkWritten(_ relink: (Kind.Record) throws -> Void) throws {}
    public func spill(_ record: Kind.Record, into writer: inout SpillWriter) {
        preconditionFailure("\(Kind.name) reads no files of the archive")
    }
    public func unspill(from reader: inout SpillReader) -> Kind.Record {
        preconditionFailure("\(Kind.name) reads no files of the archive")
    }
}
