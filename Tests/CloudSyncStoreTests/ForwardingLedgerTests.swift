@testable import CloudSyncStore
import CloudSyncKinds
import CloudSyncTesting
import Foundation
import Testing

/// What `serve --upload-to` keeps of its forwarding, per target, in the store (`ForwardingLedger`):
/// a failure keeps the last success, a success keeps the last error, and `status` reads it back.
@Suite struct ForwardingLedgerTests {
    @Test func aForwardsOutcomesAreKeptPerTarget() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.sqlite").path
        let store = try StagingStore(path: path, access: .write)
        let target = try store.ledger.uploadTargetID(target: "cloudcare", server: "http://127.0.0.1:1/api/v1", account: "token 0123456789ab")
        #expect(try store.forwarding().isEmpty)

        try store.recordForwarding(targetID: target, ForwardingRecord(everySeconds: 60, triedAt: 1_700_000_000, succeeded: true, sent: 24,
                                                                      error: nil, failures: 0, nextTryAt: 1_700_000_060, pending: 0))
        try store.recordForwarding(targetID: target, ForwardingRecord(everySeconds: 60, triedAt: 1_700_000_060, succeeded: false, sent: 0,
                                                                      error: "the server answered 500", failures: 1,
                                                                      nextTryAt: 1_700_000_120, pending: 3))
        var forwarding = try store.forwarding()
        #expect(forwarding.count == 1)
        var status = try #require(forwarding.first)
        #expect(status.target == "cloudcare" && status.server == "http://127.0.0.1:1/api/v1" && status.everySeconds == 60)
        #expect(status.lastSuccess == "2023-11-14T22:13:20Z" && status.lastSent == 24, "a failure keeps the last success: \(status)")
        #expect(status.lastError == "the server answered 500" && status.lastErrorAt == "2023-11-14T22:14:20Z")
        #expect(status.failures == 1 && status.pending == 3 && status.nextTry == "2023-11-14T22:15:20Z")

        try store.recordForwarding(targetID: target, ForwardingRecord(everySeconds: 60, triedAt: 1_700_000_120, succeeded: true, sent: 3,
                                                                      error: nil, failures: 0, nextTryAt: 1_700_000_180, pending: 0))
        // Read back from a store opened again: a success keeps the last error, for `status`.
        let reopened = try StagingStore(path: path, access: .read)
        forwarding = try reopened.forwarding()
        status = try #require(forwarding.first)
        #expect(status.lastSuccess == "2023-11-14T22:15:20Z" && status.lastSent == 3 && status.failures == 0)
        #expect(status.lastError == "the server answered 500", "\(status)")
    }
}
