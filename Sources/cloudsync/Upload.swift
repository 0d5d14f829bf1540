import ArgumentParser
import CloudSyncModel
import CloudSyncStore
import CloudSyncUpload
import Foundation

struct Upload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Upload the store's pending metrics to CloudCare, a Flō-style backfill, or HealthStepsSync.",
        usage: """
            cloudsync upload --server URL [--store PATH]
                     [--target cloudcare|flo|steps] [--token-file FILE | --no-token]
                     [--batch-size N] [--concurrency N] [--timeout S] [--cacert FILE]
                     [--max-attempts N] [--retry-delay S] [--dry-run] [--all-types]
                     [--forget]
                     [--types T,…] [--since DATE] [--until DATE] [--quiet]
            """,
        discussion: """
            Batches go in startDate order. A batch counts as uploaded (for this target and server) only once the \
            server acknowledged it; after a crash or an interrupt, upload again: nothing is lost or doubled. \
            5xx, 429 (Retry-After honoured), timeouts and connection errors are retried with exponential backoff; \
            other 4xx stop the upload with the server's words. A certificate that is not trusted is not retried: \
            for a server whose certificate a private CA signed, give that CA with --cacert FILE (PEM).

            The token comes from $CLOUDSYNC_TOKEN or --token-file (never the command line, which other users \
            can read); --no-token says that the server takes none. cloudcare and flo need one of the three. \
            steps sends the token when one is given and goes without otherwise: the HealthStepsSync API \
            takes none, while cloudsync serve with tokens wants it on /steps too (401: exit 77).

            What each target gets: CloudCare the types it keeps (the others are left out and listed; \
            --all-types sends them anyway, and what the server does not take is reported); Flō the metrics \
            from the server's recommended start date; the steps API the step counts.

            Examples:
              CLOUDSYNC_TOKEN=… cloudsync upload --server https://cloudcare.example/api/v1
              cloudsync upload --server https://flo.example --target flo \\
                --token-file token.txt
              cloudsync upload --server http://127.0.0.1:3000 --target steps --dry-run

            \(ExitStatus.help([ExitStatus.success, ExitStatus.badArguments, ExitStatus.notAStore, ExitStatus.missingStore,
                               ExitStatus.serverFailing, ExitStatus.damagedStore, ExitStatus.unwritableStore,
                               ExitStatus.busyStore, ExitStatus.refusedToken, ExitStatus.interruptedRun]))
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

    @Option(help: ArgumentHelp("Trust the certificate authorities in this PEM file too (a server with a private CA).", valueName: "file"))
    var cacert: String?

    @Option(help: "Seconds one request may take before it is retried.")
    var timeout = 30.0

    @Option(help: "Attempts per request before giving up.")
    var maxAttempts = 6

    @Option(help: "Seconds before the first retry; each retry waits about twice as long (with jitter), at most 30 s.")
    var retryDelay = 0.5

    @Flag(help: "Count what would be sent, and what would be left out; send nothing, write nothing, ask no server.")
    var dryRun = false

    @Flag(help: "cloudcare: also send the types CloudCare does not keep (it drops them; they are reported).")
    var allTypes = false

    @Flag(help: "The server takes no token: send none, even when $CLOUDSYNC_TOKEN is set.")
    var noToken = false

    @Flag(help: "Forget this target and server: its acknowledgements and upload history go (its metrics become pending for it again); nothing is sent.")
    var forget = false

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
        if allTypes && !target.contract.takesEveryTypeOnRequest { throw ValidationError("--all-types is for --target cloudcare only") }
    }

    func run() async throws {
        if forget { return try forgetTarget() }
        var configuration = UploadConfiguration(server: URL(string: server)!)
        configuration.target = target
        configuration.batchSize = batchSize
        configuration.concurrency = concurrency
        configuration.requestTimeout = timeout
        configuration.caCertificates = cacert
        configuration.retry.maximumAttempts = maxAttempts
        configuration.retry.initialDelay = retryDelay
        configuration.dryRun = dryRun
        configuration.allTypes = allTypes
        configuration.filter = try filters.makeFilter()
        configuration.token = try tokenOptions.token()
        // Say at once that no token was given, rather than send requests that a server refuses.
        // The steps API takes none: steps sends one only when it is given.
        if configuration.token == nil && !noToken && !dryRun && target.contract.wantsToken {
            throw usageError("no token given for \(server): set CLOUDSYNC_TOKEN=… or pass --token-file FILE "
                             + "(or --no-token if the server takes none)", command: "upload")
        }
        if noToken { configuration.token = nil }
        if storeOptions.isPostgres {
            throw usageError("upload sends a store file; \(storeOptions.path) is a patient's store in a clinic's PostgreSQL, "
                             + "which is the backend itself", command: "upload")
        }
        let store = try storeOptions.open(dryRun ? .read : .update)
        defer { if !dryRun { store.checkpoint() } }
        let uploader = Uploader(store: store, configuration: configuration)
        let progress = ProgressLine()
        uploader.onProgress = { progress.showUpload(done: $0.done, total: $0.total, seconds: $0.seconds) }
        uploader.shouldStop = { StopSignal.received }
        StopSignal.install()
        do {
            let report = try await uploader.run()
            progress.clear()
            if !quiet { for line in summary(report) { printError(line) } }
        } catch let error as UploadError {
            progress.clear()
            if error.isInterrupted {
                printError("interrupted: what the server acknowledged is kept; run the same upload again to send the rest")
                throw ExitStatus.interrupted
            }
            printError("upload to \(server) stopped: \(error.description)")
            if let advice = error.advice { printError(advice) }
            throw error.isAuthorization ? ExitStatus.noPermission : error.isUsage ? ExitStatus.usage : ExitStatus.unavailable
        } catch {
            progress.clear()
            throw ExitStatus.report(error)
        }
    }

    /// `--forget`: removes the target and server from the store, saying what went.
    private func forgetTarget() throws {
        let store = try storeOptions.open(.update)
        defer { store.checkpoint() }
        let key = server.hasSuffix("/") ? String(server.dropLast()) : server
        do {
            guard let forgotten = try store.ledger.forgetTarget(target: target.rawValue, server: key) else {
                let known = try StatusQuery(store).status().targets.map { "\($0.target) \($0.server)" }
                throw usageError("no upload target \(target.rawValue) \(key) in \(store.path)"
                                 + (known.isEmpty ? " (it has none)" : "; it has: \(known.joined(separator: ", "))"), command: "upload")
            }
            printError("forgot \(target.rawValue) \(key): \(counted(forgotten.acknowledged, "acknowledged metric")) and "
                       + "\(counted(forgotten.runs, "upload run")); an upload to it would send everything in its scope again")
        } catch let error as ExitCode {
            throw error
        } catch {
            throw ExitStatus.report(error)
        }
    }

    /// The lines said at the end: what was sent, and everything that was not, with why.
    func summary(_ report: UploadReport) -> [String] {
        var lines: [String] = []
        let to = "\(server) (\(target.rawValue))"
        if let previous = report.previousAccount {
            lines.append("the token opens another account on \(server) than the upload before (\(report.account), was \(previous.name), "
                         + "which has \(counted(previous.acknowledged, "metric")) acknowledged there): what this account has not acknowledged is sent")
        }
        if report.dryRun {
            lines.append(report.pending == 0 ? "dry run: nothing to upload to \(to); nothing sent"
                : "dry run: \(counted(report.pending, "metric")) to upload to \(to) in \(counted(report.batches, "batch", "batches")); nothing sent")
        } else if report.pending == 0 && report.beforeWindow > 0 {
            // Nothing was sent, and not because it had been: every metric left starts before Flō's window.
            lines.append("nothing to upload to \(to): the \(counted(report.beforeWindow, "metric")) it has not acknowledged all start before its window")
        } else if report.pending == 0 {
            lines.append("nothing to upload to \(to): every metric in scope was acknowledged before")
        } else {
            var line = "uploaded \(counted(report.uploaded, "metric")) in \(counted(report.batches, "batch", "batches")) to \(to)"
            line += String(format: " in %.1f s", report.seconds)
            if report.retries > 0 { line += "; \(counted(report.retries, "retry", "retries"))" }
            if report.serverDuplicates > 0 { line += "; the server already had \(report.serverDuplicates)" }
            if report.backfill { line += report.backfillMarkedComplete ? "; backfill marked complete" : "; backfill not complete" }
            lines.append(line)
        }
        if let start = report.windowStart, report.beforeWindow > 0 {
            lines.append("Flō's window starts at \(start) (the server's recommendedStartDate): "
                         + "\(counted(report.beforeWindow, "metric")) before it \(report.beforeWindow == 1 ? "is" : "are") not sent")
        }
        if report.windowUnknown {
            lines.append("Flō's window is set by the server's recommendedStartDate, which a dry run does not ask: every pending metric is counted")
        }
        let leftOut = report.leftOut.values.reduce(0, +)
        if leftOut > 0 {
            lines.append("left out \(counted(leftOut, "metric")) of types \(target.contract.displayName) does not keep (\(Status.describe(report.leftOut))); "
                         + "--all-types sends them anyway")
        }
        let notTaken = report.notTaken.values.reduce(0, +)
        if notTaken > 0 {
            lines.append("the server acknowledged but did not take \(counted(notTaken, "metric")) (\(Status.describe(report.notTaken))); "
                         + "they are not resent")
        }
        return lines
    }
}

extension UploadTarget: ExpressibleByArgument {
    /// `--target CloudCare` is meant as `cloudcare` (CaseInsensitiveArgument's rule, for a type of
    /// the upload module).
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}
