import CloudSyncExport
import CloudSyncHealthAutoExport
import CloudSyncInputs
import CloudSyncKinds
import CloudSyncModel
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// The bytes a record sink wrote into a file of `directory`: `write` hands the sink over, and the
/// sink is finished by what it is given to (the source runner, the store's export).
func written(in directory: URL, _ name: String = UUID().uuidString, _ write: (OutputFile) throws -> Void) throws -> Data {
    let path = directory.appendingPathComponent(name).path
    try write(try OutputFile.create(path, durable: false))
    return try Data(contentsOf: URL(fileURLWithPath: path))
}

/// What `convert --kind` does, through the library: the records of `kind` in `input`, read into
/// `sink` by the archive converter (an export) or Health Auto Export's reader (the app's JSON); how
/// many records of the kind, and their parts.
@discardableResult
func convert<Kind: ArchiveRecordKind>(_ kind: Kind.Type, _ input: String, into sink: any RecordSink,
                                      filter: MetricFilter = .all) throws -> RecordCount {
    guard input.hasSuffix(".json") else {
        let report = try ReaderRunner.run(ArchiveConverter(input: input, filter: filter, kinds: [kind]),
                                          into: ReaderSinks(metrics: DiscardingSink(), records: sink))
        return report.count(Kind.name)
    }
    let oneKind = OneKindSink(kindNamed: Kind.name, to: sink)
    let (sinks, _) = Filtering.sinks(filter, ReaderSinks(metrics: DiscardingSink(), records: oneKind))
    try ReaderRunner.run(HealthAutoExportFiles([input]), into: sinks)
    return oneKind.count
}

/// Imports a sample into `store`: an export, or the app's document; what the store added per kind.
@discardableResult
func importSample(_ input: String, into store: StagingStore) throws -> StoreImportResult {
    guard input.hasSuffix(".json") else { return try store.importExport(input).stored }
    return try store.importDocument(try HealthAutoExportDocument(path: input), details: .file).stored
}

/// The JSON Lines `convert --kind` writes for `kind` from `input`.
func convertedLines<Kind: ArchiveRecordKind>(_ kind: Kind.Type, _ input: String, in directory: URL) throws -> Data {
    try written(in: directory) { try convert(kind, input, into: RecordLinesSink(output: $0)) }
}

/// The JSON Lines `export --kind` writes for `kind` from `store`.
func exportedLines<Kind: ArchiveRecordKind>(_ kind: Kind.Type, from store: StagingStore, filter: MetricFilter = .all,
                                            in directory: URL) throws -> Data {
    try written(in: directory) { try ExportQuery(store).records(kind, filter: filter, to: RecordLinesSink(output: $0)) }
}

/// Records written again as the kind writes them: the JSON Lines of `records`.
func jsonLines<Kind: RecordKind>(_ records: [Kind.Record], as kind: Kind.Type) -> Data {
    var out = ByteBuffer(capacity: 4096)
    for record in records { Kind.appendJSONLines(record, to: &out) }
    return out.withBytes { Data($0) }
}

/// The lines of JSON Lines bytes, without their newlines.
func lines(_ data: Data) -> [String] {
    String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}

/// Parses a JSON line with Foundation's parser (independent of the writers under test).
func object(_ line: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
}
