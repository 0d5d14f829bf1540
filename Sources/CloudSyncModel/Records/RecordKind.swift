/// A kind of record besides metrics — routes, ECGs, beat series, correlations, clinical records,
/// audiograms, vision prescriptions: what it is called, how it is counted, and how it is written as
/// JSON Lines and as CSV. One conformance per kind. How a kind is read from an export and kept in
/// the store are its conformances in the layers that know those (`CloudSyncKinds`), and the
/// registry of kinds is there too.
///
/// Every sink writes every kind through this protocol, so a sink cannot forget a kind: there is no
/// method per kind to leave out.
public protocol RecordKind {
    associatedtype Record: Sendable
    /// The `--kind` value, and the key of the kind in summaries and `status --json`.
    static var name: String { get }
    /// "route" / "routes", said in summaries.
    static var noun: Noun { get }
    /// What a record is made of (its points, samples, beats), counted in summaries; nil when nothing.
    static var part: Noun? { get }
    static func parts(of record: Record) -> Int
    /// The instant `--since` and `--until` apply to; nil: the record is always kept.
    static func date(of record: Record) -> Int64?
    /// The record as JSON Lines, each line ending with `\n` (a route gives one line per point).
    static func appendJSONLines(_ record: Record, to out: inout ByteBuffer)
    /// The CSV header: one row per record, or per point where the kind is a series.
    static var csvColumns: [String] { get }
    /// The record's CSV rows (RFC 4180, CRLF), the record's own fields repeated on each.
    static func appendCSVRows(_ record: Record, to out: inout ByteBuffer)
}

extension RecordKind {
    public static var part: Noun? { nil }
    public static func parts(of record: Record) -> Int { 0 }

    /// "2 routes (45 points)".
    public static func describe(_ count: RecordCount) -> String {
        var text = counted(count.records, noun.singular, noun.plural)
        if let part { text += " (\(counted(count.parts, part.singular, part.plural)))" }
        return text
    }
}

/// A word and its plural, for counts in messages.
public struct Noun: Sendable, Equatable {
    public var singular: String
    public var plural: String
    public init(_ singular: String, _ plural: String? = nil) {
        self.singular = singular
        self.plural = plural ?? singular + "s"
    }
}

/// How many records of a kind, and how many parts they hold.
public struct RecordCount: Sendable, Codable, Equatable {
    public var records = 0
    public var parts = 0
    public init(records: Int = 0, parts: Int = 0) {
        self.records = records
        self.parts = parts
    }

    public mutating func add<Kind: RecordKind>(_ record: Kind.Record, of kind: Kind.Type) {
        records += 1
        parts += Kind.parts(of: record)
    }

    public mutating func add(_ other: RecordCount) {
        records += other.records
        parts += other.parts
    }
}
