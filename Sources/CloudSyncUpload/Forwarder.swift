import CloudSyncModel
package import CloudSyncStore
import Foundation
package import Logging
import Synchronization

/// Sends the store on by itself (`serve --store --upload-to`): after each push or file (`nudge`),
/// and every `every` seconds, what is pending for the target goes up with the upload ledger that
/// `cloudsync upload` keeps (each metric once, a batch acknowledged only on the server's answer).
/// Beside it, `cloudsync upload` to the same target waits its turn (`StagingStore.takeUploadTurn`).
///
/// When a try fails the next one waits longer (2 s, doubling, at most `every`), and a push does
/// not bring it forward: a server down for an hour gets a try a minute, not a storm. A refused
/// token is not retried before the next interval: trying again cannot help until someone changes
/// the token, and a loop would only fill the server's log. What it did and will do is kept in the
/// store (`status`) and said by `health()` (`GET /health`) and the log.
///
/// `nudge()` and `health()` are not the actor's: a forward's store work is synchronous and can wait
/// seconds for the write lock (an import beside it), and a push's reply, which nudges, waited that
/// long with them (3.5 s in `AlwaysOnTests.everythingAtOnceOnOneStore` on 2 busy cores).
package actor Forwarder {
    package struct Settings: Sendable {
        package var storePath: String
        /// The store's kinds (whose tables a writer upgrades), as serve opens it.
        package var store: StagingStore.Configuration
        package var upload: UploadConfiguration
        /// Seconds between two forwards without a push.
        package var every: Double

        package init(storePath: String, store: StagingStore.Configuration, upload: UploadConfiguration, every: Double) {
            self.storePath = storePath
            self.store = store
            self.upload = upload
            self.every = every
        }
    }

    private let settings: Settings
    private let logger: Logger
    private var store: StagingStore?
    private var targetID: Int64?
    private nonisolated let nudged = Atomic<Bool>(false)
    private var failures = 0
    private var nextTry = Date()
    private var state: ForwardingStatus
    /// `state` as `health()` reads it, without waiting for the actor: published whole once the store
    /// holds it too (`publish()`), never half-way through a try.
    private nonisolated let published: Mutex<ForwardingStatus>

    package init(settings: Settings, logger: Logger) {
        var upload = settings.upload
        // A run gives up within seconds when the server is down; the forwarder's own backoff, which
        // the store and /health show, takes over.
        upload.retry.maximumAttempts = min(upload.retry.maximumAttempts, 3)
        var settings = settings
        settings.upload = upload
        self.settings = settings
        self.logger = logger
        let state = ForwardingStatus(target: settings.upload.target.rawValue, server: settings.upload.server.absoluteString,
                                     everySeconds: Int(settings.every), lastSent: 0, failures: 0)
        self.state = state
        published = Mutex(state)
    }

    /// Something new is in the store (a push, a file): forward soon, unless a failure's backoff or
    /// a refused token says to wait.
    package nonisolated func nudge() { nudged.store(true, ordering: .relaxed) }

    /// What `GET /health` says under "forwarding".
    package nonisolated func health() -> ForwardingStatus { published.withLock { $0 } }

    private func publish() { published.withLock { $0 = state } }

    /// Forwards until the task is cancelled (serve stops).
    package func run() async {
        restoreKeptState()
        while !Task.isCancelled {
            let now = Date()
            if now >= nextTry || (nudged.load(ordering: .relaxed) && failures == 0) {
                // A nudge from here on is for data this forward may not see: it stays.
                nudged.store(false, ordering: .relaxed)
                await forwardOnce()
            }
            try? await Task.sleep(nanoseconds: 250_000_000)
        }
    }

    private func forwardOnce() async {
        let started = Date()
        var record = ForwardingRecord(everySeconds: Int(settings.every), triedAt: Int64(started.timeIntervalSince1970), succeeded: false,
                                      sent: 0, error: nil, failures: failures, nextTryAt: 0, pending: nil)
        var wait = settings.every
        do {
            let store = try openStore()
            let uploader = Uploader(store: store, configuration: settings.upload)
            uploader.shouldStop = { Task.isCancelled }
            let report = try await uploader.run()
            failures = 0
            record.succeeded = true
            record.sent = report.uploaded
            record.pending = 0
            if report.uploaded > 0 {
                logger.info("forwarded", metadata: ["forward.sent": "\(report.uploaded)", "forward.target": "\(state.target) \(state.server)"])
            }
        } catch StoreError.uploading(_, let target, _) {
            // `cloudsync upload` to the same target runs: it sends what this would have. Nothing to
            // record; look again soon.
            logger.info("forwarding waits: another process uploads to \(target)")
            nextTry = Date().addingTimeInterval(min(settings.every, 10))
            return
        } catch {
            failures += 1
            let refused = (error as? UploadError)?.isAuthorization == true
            wait = refused ? settings.every : min(settings.every, 2 * pow(2, Double(failures - 1)))
            let when = UTCDateFormatter.string(Int64(Date().addingTimeInterval(wait).timeIntervalSince1970))
            var said = "\(error)"
            if refused { said += "; not retried before the next interval (\(when)): give the token the server expects" }
            record.error = said
            logger.warning("forwarding failed", metadata: ["forward.error": "\(said)", "forward.next": "\(when)", "forward.failures": "\(failures)"])
            record.pending = try? pendingCount()
        }
        record.failures = failures
        nextTry = Date().addingTimeInterval(wait)
        record.nextTryAt = Int64(nextTry.timeIntervalSince1970)
        remember(record)
        if let store, let targetID { try? store.recordForwarding(targetID: targetID, record) }
        publish()
    }

    /// What the store kept of the forwarding before this process (a restart, a `kill -9`): `/health`
    /// says the last success and the last error from the start, not only once this process has
    /// tried. The backoff is this process's own: it tries at once.
    private func restoreKeptState() {
        guard let store = try? openStore(),
              let kept = try? store.forwarding().first(where: { $0.target == state.target && $0.server == serverKey }) else { return }
        state.lastTry = kept.lastTry
        state.lastSuccess = kept.lastSuccess
        state.lastSent = kept.lastSent
        state.lastError = kept.lastError
        state.lastErrorAt = kept.lastErrorAt
        state.pending = kept.pending
        publish()
    }

    private func remember(_ record: ForwardingRecord) {
        let instant = { (seconds: Int64) in UTCDateFormatter.string(seconds) }
        state.lastTry = instant(record.triedAt)
        if record.succeeded {
            state.lastSuccess = instant(record.triedAt)
            state.lastSent = record.sent
        } else {
            state.lastError = record.error
            state.lastErrorAt = instant(record.triedAt)
        }
        state.failures = record.failures
        state.nextTry = instant(record.nextTryAt)
        state.pending = record.pending
    }

    /// The store, opened once for writing the ledger (a store that cannot be opened is tried
    /// again at the next try).
    private func openStore() throws -> StagingStore {
        if let store { return store }
        let opened = try StagingStore(path: settings.storePath, access: .update, configuration: settings.store)
        targetID = try opened.ledger.uploadTargetID(target: settings.upload.target.rawValue, server: serverKey,
                                                     account: UploadAccount.name(token: settings.upload.token))
        store = opened
        return opened
    }

    private var serverKey: String { settings.upload.server.absoluteString.trimmingTrailingSlash }

    /// What the target's next forward would send (a count: not sent, not written).
    private func pendingCount() throws -> Int? {
        guard let store else { return nil }
        let upload = settings.upload
        let scope = UploadScope(contract: upload.target.contract, userFilter: upload.filter, windowStart: nil, allTypes: upload.allTypes)
        return try store.ledger.pendingSummary(targetID: targetID, filter: scope.filter).count
    }
}
