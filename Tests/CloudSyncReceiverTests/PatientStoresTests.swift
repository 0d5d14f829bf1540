import CloudSyncKinds
@testable import CloudSyncReceiver
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// `PatientStoreFolder`: each patient's writes one at a time on their own store file, other
/// patients' beside them, and a write that waits longer than its limit for the patient's turn gives
/// up with `PatientStoreBusy` (serve answers 503 with Retry-After) instead of waiting for ever; and
/// `PersonalStore` (`serve --store`) the same on its one store.
@Suite struct PatientStoresTests {
    @Test func aPatientsWritesTakeTurnsAndAWaitHasALimit() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stores = PatientStoreFolder(folder: dir.appendingPathComponent("clinic-patients").path, configuration: .standard, wait: 0.3)
        // Alice's long write (an export being imported) holds her turn until the test lets it go: no
        // step depends on how soon a task runs (a busy test run delays them by minutes).
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        async let long = stores.write(owner: "alice") { store -> String in
            started.signal()
            release.wait()
            return store.path
        }
        while started.wait(timeout: .now()) != .success { try await Task.sleep(for: .milliseconds(10)) }
        // Should the limit be lost, the next write would wait for ever: let the turn go after a while,
        // so that the test fails (the write succeeds) instead of hanging.
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { release.signal() }
        // Her next write waits 0.3 s for her turn, then gives up.
        let waited = await stores.write(owner: "alice") { $0.path }
        #expect(throws: PatientStoreBusy.self) { try waited.get() }
        // Bob is not held up by alice.
        let bobs = try await stores.write(owner: "bob") { $0.path }.get()
        #expect(bobs == dir.appendingPathComponent("clinic-patients/bob.sqlite").path)
        release.signal()
        #expect(try await long.get() == dir.appendingPathComponent("clinic-patients/alice.sqlite").path)
        // Once her long write is over, her next one goes.
        #expect(try await stores.write(owner: "alice") { _ in true }.get())
        // Erasing her takes her files away, and says what they held.
        let erased = try await stores.erase(owner: "alice")
        #expect(erased["store.kind_schema"] != nil && !FileManager.default.fileExists(atPath: stores.path(of: "alice")))
        #expect(try await stores.erase(owner: "alice").isEmpty)
    }

    /// `serve --store`'s one store: its writes take turns with the same limit (a push behind an export
    /// being uploaded waited for the whole import, with no answer).
    @Test func thePersonalStoresWritesTakeTurnsWithALimitToo() async throws {
        let fixture = try StoreFixture()
        let stores = PersonalStore(store: try fixture.open(), wait: 0.3)
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        async let long = stores.write(owner: "me") { _ -> Bool in
            started.signal()
            release.wait()
            return true
        }
        while started.wait(timeout: .now()) != .success { try await Task.sleep(for: .milliseconds(10)) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { release.signal() }
        let waited = await stores.write(owner: "me") { _ in true }
        #expect(throws: PatientStoreBusy.self) { try waited.get() }
        release.signal()
        #expect(try await long.get())
        #expect(try await stores.write(owner: "me") { try StatusQuery($0).status().metrics }.get() == 0)
    }
}
