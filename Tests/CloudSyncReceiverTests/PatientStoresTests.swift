import CloudSyncKinds
@testable import CloudSyncReceiver
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// `PatientStoreFolder`: each patient's writes one at a time on their own store file, other
/// patients' beside them, and a write that waits longer than its limit for the patient's turn gives
/// up with `PatientStoreBusy` (serve answers 503 with Retry-After) instead of waiting for ever.
@Suite struct PatientStoresTests {
    @Test func aPatientsWritesTakeTurnsAndAWaitHasALimit() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stores = PatientStoreFolder(folder: dir.appendingPathComponent("clinic-patients").path, configuration: .standard, wait: 0.3)
        // Alice's long write (an export being imported) holds her turn for a second.
        async let long = stores.write(owner: "alice") { store -> String in
            Thread.sleep(forTimeInterval: 1)
            return store.path
        }
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        let waited = await stores.write(owner: "alice") { $0.path }
        #expect(throws: PatientStoreBusy.self) { try waited.get() }
        #expect(started.duration(to: .now) < .seconds(0.9))
        // Bob is not held up by alice.
        let bobs = try await stores.write(owner: "bob") { $0.path }.get()
        #expect(bobs == dir.appendingPathComponent("clinic-patients/bob.sqlite").path)
        #expect(try await long.get() == dir.appendingPathComponent("clinic-patients/alice.sqlite").path)
        // Once her long write is over, her next one goes.
        #expect(try await stores.write(owner: "alice") { _ in true }.get())
        // Erasing her takes her files away, and says what they held.
        let erased = try await stores.erase(owner: "alice")
        #expect(erased["store.kind_schema"] != nil && !FileManager.default.fileExists(atPath: stores.path(of: "alice")))
        #expect(try await stores.erase(owner: "alice").isEmpty)
    }
}
