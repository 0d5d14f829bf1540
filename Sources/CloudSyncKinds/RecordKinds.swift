public import CloudSyncExport
import CloudSyncModel
public import CloudSyncStore

/// A kind read from the export archive and kept in the store: what every kind of this registry is.
public protocol ArchiveRecordKind: ArchiveKind, StoredKind {}

/// The registry of the kinds of record besides metrics. The converter, the store and the commands
/// loop over it; adding a kind is its record in the model, its file here, and a line below.
public enum RecordKinds {
    /// In the order summaries list them. (A computed list: metatypes of a protocol are not
    /// `Sendable`, so a stored one would be a shared global.)
    public static var all: [any ArchiveRecordKind.Type] {
        [BeatSeriesKind.self, CorrelationKind.self, RouteKind.self, ECGKind.self, ClinicalKind.self, AudiogramKind.self, VisionPrescriptionKind.self,
         MedicationKind.self, StateOfMindKind.self, SampleSeriesKind.self]
    }

    /// The kind whose `--kind` name is `name`.
    public static func named(_ name: String) -> (any ArchiveRecordKind.Type)? { all.first { $0.name == name } }

    public static var names: [String] { all.map { $0.name } }
}

extension StagingStore.Configuration {
    /// A store that keeps every kind of the registry: what the commands open.
    public static var standard: Self { Self(kinds: RecordKinds.all) }
}

extension StagingStore {
    /// Opens the store at `path` keeping every kind of the registry.
    public convenience init(path: String, access: Access) throws {
        try self.init(path: path, access: access, configuration: .standard)
    }

    /// Opens a store for reading with every kind of the registry, upgrading it first when older.
    public static func openForReading(path: String) throws -> StagingStore {
        try openForReading(path: path, configuration: .standard)
    }
}
