import CloudSyncKinds
import CloudSyncModel
import CloudSyncInputs
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// A store written by the schemas before the kinds existed, upgraded in place on first use: every
/// row kept, then the kinds' tables made and filled by the next import.
@Suite struct KindTablesUpgradeTests {
    /// A store of schema `version` as the release of that schema wrote it: two heart rates, one
    /// acknowledged by a CloudCare server, and (version 1) the batch that sent it.
    func oldStore(_ fixture: StoreFixture, version: Int) throws {
        let database = try SQLiteDatabase(path: fixture.path, mode: .readWrite)
        for step in 0..<version { try database.execute(StoreSchema.migrations[step]) }
        try database.execute("PRAGMA user_version = \(version)")
        try database.execute("""
            INSERT INTO import_run(id, input, started_at, outcome) VALUES (1, 'old.zip', 1700000000, 'ok');
            INSERT INTO metric_type(id, name) VALUES (1, 'HKQuantityTypeIdentifierHeartRate');
            INSERT INTO source(id, name) VALUES (1, 'Watch');
            INSERT INTO unit(id, name) VALUES (1, 'bpm');
            INSERT INTO device(id, name) VALUES (1, 'Apple Watch');
            INSERT INTO metric(type_id, start_date, end_date, source_id, value, unit_id, device_id, import_id)
                VALUES (1, 1700000000, 1700000000, 1, 61, 1, 1, 1), (1, 1700000060, 1700000060, 1, 62, 1, 1, 1);
            INSERT INTO upload_target(id, target, server) VALUES (1, 'cloudcare', 'http://old');
            INSERT INTO upload_ack(target_id, metric_id) VALUES (1, 1);
            INSERT INTO upload_batch(target_id, at, count, success) VALUES (1, 1700000100, 1, 1);
            """)
    }

    @Test(arguments: [1, 2, 3, 4])
    func anOlderStoreIsUpgradedInPlaceWithoutLosingARow(version: Int) throws {
        let fixture = try StoreFixture()
        try oldStore(fixture, version: version)
        // A reader refuses it, untouched; `status --upgrade` (.update) upgrades it and every row is seen.
        #expect { try fixture.openForReading() } throws: { "\($0)".contains("schema (\(version)) is older") }
        #expect(try SQLiteDatabase(path: fixture.path, mode: .readOnly).scalarInt("PRAGMA user_version") == Int64(version))
        do {
            let before = try StatusQuery(fixture.open(.update)).status()
            #expect(before.metrics == 2 && before.schemaVersion == StoreSchema.currentVersion)
        }
        let store = try fixture.open()
        #expect(try store.database.scalarInt("PRAGMA user_version") == Int64(StoreSchema.currentVersion))
        let result = try store.importExport(Paths.sampleZip)
        #expect(result.stored.records["routes"]?.new == 2 && result.stored.records["ecg"]?.new == 1)
        let status = try StatusQuery(store).status()
        #expect(status.schemaVersion == StoreSchema.currentVersion)
        #expect(status.metrics == 26)                       // the two old rows and the sample's 24
        #expect(status.records["routes"]?.records == 2 && status.records["ecg"]?.records == 1)
        #expect(status.targets.first?.acknowledged == 1)
        if version == 1 {
            #expect(status.uploads.count == 1 && status.uploads.first?.sent == 1)   // the old batch, as one run
        }
        // Every kind has its tables at their current version.
        for kind in RecordKinds.all {
            let kept = try store.database.scalarInt("SELECT version FROM kind_schema WHERE kind = ?", [.text(kind.name)])
            #expect(kept == Int64(kind.tableVersions.count), "\(kind.name)")
        }
        #expect(try store.integrityCheck() == "ok")
    }
}
