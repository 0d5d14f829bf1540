import ArgumentParser
import CloudSyncCore
import CloudSyncStore
import CloudSyncUpload
import Foundation

struct Upload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Upload the store's pending metrics to CloudCare, a Flō-style backfill, or HealthStepsSync.",
        discussion: """
            Batches go in startDate order. A batch counts as uploaded (for this target and server) only once the \
            server acknowledged it; after a crash or an interrupt, upload again: nothing is lost or doubled. \
            5xx, 429 (Retry-After honoured), timeouts and connection errors are retried with exponential backoff; \
            other 4xx stop the upload with the server's words. The token comes from $CLOUDSYNC_TOKEN or --token-file.

            Examples:
              CLOUDSYNC_TOKEN=… cloudsync upload --server https://cloudcare.example/api/v1
              cloudsync upload --server http://127.0.0.1:8080 --target flo --token-file token.txt

            \\(ExitStatus.helpText)
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The server's base URL (for CloudCare usually https://host/api/v1).")
    var server: String

    @Option(help: "cloudcare, flo or steps.")
    var target: UploadTarget = .cloudcare

    @Option(help: "Metrics per batch (at most 1000, as the contracts say).")
    var batchSize = 1000

    @Option(help: "Batches in flight at once.")
    var concurrency = 1

    @Option(help: "Seconds one request may take before it is retried.")
    var timeout = 30.0

    @Option(help: "Attempts per request before giving up.")
    var maxAttempts = 6

    @Option(help: "Seconds before the first retry; each retry waits about twice as long (with jitter), at most 30 s.")
    var retryDelay = 0.5

    @Flag(help: "Count what would be sent; send nothing.")
    var dryRun = false

    @OptionGroup var tokenOptions: TokenOptions
    @OptionGroup var filters: FilterOptions

    @Flag(name: .shortAndLong, help: "No summary on stderr.")
    var quiet = false

    func validate() throws {
        guard (1...1000).contains(batchSize) else { throw ValidationError("--batch-size must be between 1 and 1000") }
        guard (1...16).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 16") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
        guard retryDelay > 0 else { throw ValidationError("--retry-delay must be positive") }
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw ValidationError("--server must be an http:// or https:// URL")
        }
    }

    func run() async throws {
        var configuration = UploadConfiguration(server: URL(string: server)!)
        configuration.target = target
        configuration.batchSize = batchSize
        configuration.concurrency = concurrency
        configuration.requestTimeout = timeout
        configuration.retry.maximumAttempts = maxAttempts
        configuration.retry.initialDelay = retryDelay
        configuration.dryRun = dryRun
        configuration.filter = try filters.makeFilter()
        configuration.token = try tokenOptions.token()
        let store = try storeOptions.open(.write)
        let uploader = Uploader(store: store, configuration: configuration)
        let progress = ProgressLine()
        uploader.onProgress = { progress.showUpload(done: $0.done, total: $0.total, seconds: $0.seconds) }
        uploader.shouldStop = { StopSignal.received }
        StopSignal.install()
        do {
            let report = try await uploader.run()
            progress.clear()
            guard !quiet else { return }
            if report.dryRun {
                printError("dry run: \(report.pending) metrics pending for \(target.rawValue) at \(server), \(report.batches) batches; nothing sent")
                return
            }
            var line = "uploaded \(report.uploaded) metrics in \(report.batches) batches to \(server) (\(target.rawValue))"
            line += String(format: " in %.1f s", report.seconds)
            if report.retries > 0 { line += "; \(report.retries) retries" }
            if report.serverDuplicates > 0 { line += "; the server already had \(report.serverDuplicates)" }
            if report.backfill { line += report.backfillMarkedComplete ? "; backfill marked complete" : "; backfill not complete" }
            printError(line)
        } catch let error as UploadError {
            progress.clear()
            printError("upload to \(server) stopped: \(error.description); what was acknowledged before is kept, upload again to continue")
            throw error.isAuthorization ? ExitStatus.noPermission : error.isInterrupted ? ExitStatus.interrupted : ExitStatus.unavailable
        } catch {
            progress.clear()
            throw ExitStatus.report(error)
        }
    }
}

extension UploadTarget: ExpressibleByArgument {}

extension ProgressLine {
    func showUpload(done: Int, total: Int, seconds: Double) {
        guard enabled else { return }
        let rate = seconds > 0 ? Double(done) / seconds : 0
        let eta = rate > 0 ? Double(total - done) / rate : 0
        FileHandle.standardError.write(String(format: "\r%10d / %d metrics  %8.0f metrics/s  ETA %4.0f s ", done, total, rate, eta).data(using: .utf8)!)
    }
}
