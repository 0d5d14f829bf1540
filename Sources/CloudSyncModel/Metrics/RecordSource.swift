/// A source of records: it reads its input and hands every metric and record to the sinks it was
/// given. The export archive is one (`ArchiveConverter`, in CloudSyncExport); Health Auto Export's
/// JSON is another (`HealthAutoExportReader`, in CloudSyncHealthAutoExport). A new source is a new
/// reader behind this protocol, not a second pipeline: the sinks (JSON Lines, CSV, the store) take
/// what any source gives. It is in the model, which has no C dependency, so that a source needs
/// neither libxml2 nor the archive.
public protocol RecordSource: AnyObject {
    associatedtype Report
    /// The input as messages name it.
    var name: String { get }
    @discardableResult
    func run() throws -> Report
}
