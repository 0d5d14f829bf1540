import ArgumentParser
import CloudSyncKinds
import CloudSyncReceiver
import CloudSyncStore
import CloudSyncUpload
import Foundation
import Logging

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a receiver for the three wire contracts (CloudCare, Flō backfill, HealthStepsSync).",
        usage: """
            cloudsync serve [--host ADDRESS] [--port N] [--db PATH]
                     [--store PATH [--watch DIR] [--upload-to URL]]
                     [--upload-target T] [--upload-token-file FILE]
                     [--upload-cacert FILE] [--upload-every 60s]
                     [--tokens FILE | --token-file FILE] [--steps-file PATH]
                     [--max-body-size BYTES]
                     [--recommended-start-date DATE] [--faults LIST] [--delay S]
                     [--drop-unknown-types] [--open-to-the-network-without-a-token]
            """,
        discussion: """
            Endpoints: POST /api/v1/wearables/import/apple-health (also without /api/v1), \
            POST /api/v1/wearables/devices/pair, GET /api/healthkit/sync-status, POST /api/healthkit/samples, \
            POST /api/healthkit/mark-backfill-complete, POST|GET /steps, GET /health. \
            Bodies are validated like the real backends (422 with field errors, 400 for the steps API, 413 over \
            --max-body-size). With a token, every route but /health wants it, /steps included (what it stores \
            belongs to a user), and answers 401 without it. Stops cleanly on SIGTERM or SIGINT, within 10 s.

            What every route receives is the patient's store rows (below): a CloudCare metric, a Flō sample or \
            a step sample that is also in their export or a push is counted once, and the summary \
            (GET /api/v1/wearables/metrics/summary) and GET /steps count the store, each sample once. Each \
            request is one transaction: 503 with Retry-After when the patient's store stays busy or the \
            database cannot be reached, 507 on a full disk, and nothing of it is kept. DELETE /steps is 405: \
            an administrator erases a patient instead.

            --db takes an SQLite file, or a PostgreSQL database: postgres://USER[:PASSWORD]@HOST[:PORT]/DB, \
            ?host=/dir for a Unix socket's folder, ?sslmode=disable|prefer|require. PostgreSQL is checked at \
            start: a role or database that does not exist, a password refused, or nothing listening is said \
            within seconds, in PostgreSQL's words.

            --faults injects faults into the data endpoints, for testing clients: a comma-separated list applied \
            to the first data requests in order: 503 (any 5xx), 429:SECONDS (Retry-After), lost:SECONDS (store, \
            then answer too late), stall:SECONDS (store nothing, answer too late), ok.

            Users: --tokens FILE names one USER TOKEN pair per line (# comments; tokens of 16 characters \
            or more; keep it chmod 600). What a request stores belongs to its token's user, who alone sees \
            and counts it (GET /api/v1/wearables/metrics/summary). A line may end in reads=alice,bob (a \
            carer: reads those patients' summaries and reports at ?user=NAME, writes nothing) or admin (may erase a \
            user: DELETE /api/v1/users/NAME; reads no health data). Anything else is 403, and PostgreSQL \
            checks it again (row-level security). A single --token-file (or $CLOUDSYNC_TOKEN) is the user \
            "default".

            Safe by default: an address other than loopback (127.0.0.1, ::1, localhost) is refused \
            without a token, since anyone who can reach the machine could then write health data and \
            pairings. --open-to-the-network-without-a-token allows it (a private test network).

            --store PATH also takes Health Auto Export's pushes (the iOS app's REST API automation, JSON, \
            version 2) at POST /health-auto-export into that staging store (made if needed), each push in one \
            transaction, with the token as Authorization: Bearer or X-API-Key. The reply says what was stored, \
            what was already there and what was not kept; 400 or 422 with the JSON path of the first problem; \
            413 over --max-body-size (128 MiB for pushes unless given: a month of raw heart rate). A push waits \
            for its turn to write at most 10 s (an import beside it commits in chunks), then 503 with Retry-After; \
            a full disk is 507. Every other command works on the store meanwhile.

            A clinic: --db FILE (SQLite) keeps each patient's batches, pushes (POST /health-auto-export) and \
            exports in a store of their own, FILE-patients/NAME.sqlite; --db postgres://… keeps them as the \
            patient's rows of the store's tables there (every row with its owner; a patient's connection sees \
            only theirs). \
            Every command reads a patient's store: cloudsync status --store FILE|postgres://… --user NAME. \
            POST /api/v1/exports takes an export.zip \
            (Content-Type: application/zip) or export.xml (application/xml) as its body, imported as it \
            arrives, all of it or nothing (a dropped connection keeps nothing): 201 with what was stored, 422 \
            for a damaged one. GET /report?user=NAME is the patient's page, for them and their carers. \
            SIGHUP reads the tokens file again.

            Always on, with --store: --upload-to URL forwards what is pending to that server (--upload-target \
            cloudcare|flo|steps, --upload-token-file, --upload-cacert) after each push and file and every \
            --upload-every, with the ledger of cloudsync upload; failures back off up to the interval, a refused \
            token waits for the next one. --watch DIR imports each Health Auto Export file and export.zip/xml that \
            appears in DIR, once by content, when it is complete, never touching it. GET /report (with the token) \
            is cloudsync report of the store as it is now (?since=&until=&tz=), and POST /api/v1/exports takes \
            an export into it. GET /health and cloudsync status say the forwarding and the folder.

            --drop-unknown-types makes the CloudCare endpoint behave like the real backend, which keeps only \
            the types it knows and counts only those in total_metrics.

            Example:
              cloudsync serve --port 8080 --db received.sqlite &
              cloudsync upload --server http://127.0.0.1:8080/api/v1 --no-token

            \(ExitStatus.help([ExitStatus.success, ExitStatus.badArguments, ExitStatus.notAStore, ExitStatus.cannotListenOrReach,
                               ExitStatus.damagedStore, ExitStatus.unwritableDatabase, ExitStatus.busyStore, ExitStatus.refusedRole]))
            """
    )

    @Option(help: "Address to bind (127.0.0.1 unless told otherwise).")
    var host = "127.0.0.1"

    @Option(help: "Port, 0 to 65535 (0 picks a free one; the address is printed on stderr).")
    var port = 8080

    @Option(help: "The receiver's SQLite file, or postgres://USER@HOST:PORT/DB (see above); default: the --store itself, else cloudsync-serve.sqlite.")
    var db: String?

    /// The receiver's database: `--db`, else the `--store` itself (one person's server keeps one
    /// database: its pairings, backfill state and request log sit beside the store's tables), else
    /// `cloudsync-serve.sqlite` in the current folder. A `health-serve.sqlite` that an older version
    /// made beside `--store health.sqlite` stays in use.
    var database: String {
        if let db { return db }
        guard let store else { return "cloudsync-serve.sqlite" }
        let older = URL(fileURLWithPath: store).deletingPathExtension().path + "-serve.sqlite"
        return FileManager.default.fileExists(atPath: older) ? older : store
    }

    @Option(help: "A staging store (made if needed) taking Health Auto Export's pushes at POST /health-auto-export.")
    var store: String?

    @Option(help: "The steps JSONL file an older cloudsync wrote beside an SQLite --db (default: next to it): erasing a patient removes theirs. Steps are store rows now.")
    var stepsFile: String?

    @Option(help: "Largest request body accepted, in bytes (larger get 413); 16 MiB, and 128 MiB for pushes, unless given.")
    var maxBodySize: Int?

    @Option(help: "sync-status's recommendedStartDate.")
    var recommendedStartDate = "2021-12-07T00:00:00.000Z"

    @Option(help: "Faults to inject, for testing clients (see above).")
    var faults = ""

    @Option(help: "Seconds added to every data request (a slow server), 0 to 3600.")
    var delay = 0.0

    @Flag(help: "Drop CloudCare metrics of the types the real backend does not know, as it does.")
    var dropUnknownTypes = false

    @Flag(help: "Listen beyond loopback without a token: anyone who can reach this machine could write data.")
    var openToTheNetworkWithoutAToken = false

    @Option(help: "A file of USER TOKEN lines: one user per token; each user sees only what it stored.")
    var tokens: String?

    @OptionGroup var tokenOptions: TokenOptions

    @OptionGroup(title: "Always on (with --store)") var alwaysOn: AlwaysOnOptions

    /// The users from --tokens, else the single token's user `default`; nil without any token. A
    /// tokens file that cannot be read or whose lines are wrong is said in a sentence that names the
    /// file and the line, and the command's help (64), without the whole usage: it says nothing of the file.
    func users() throws -> ReceiverUsers? {
        if let tokens {
            guard tokenOptions.tokenFile == nil else { throw ValidationError("give --tokens or --token-file, not both") }
            guard let text = try? String(contentsOfFile: tokens, encoding: .utf8) else {
                throw usageError("serve: cannot read the tokens file \(tokens): \(String(cString: strerror(errno)))", command: "serve")
            }
            do { return try ReceiverUsers(parsing: text, file: tokens) } catch {
                throw usageError("serve: \(error)", command: "serve")
            }
        }
        return try tokenOptions.token().map { ReceiverUsers(singleToken: $0) }
    }

    func validate() throws {
        // ArgumentParser takes any Int; NIO would wrap 70000 round to 4464 and listen there.
        guard (0...65535).contains(port) else {
            throw ValidationError("--port \(port) is not a port: give a number from 0 to 65535 (0 picks a free one)")
        }
        if let maxBodySize, maxBodySize < 1 {
            throw ValidationError("--max-body-size \(maxBodySize) accepts no body: give a number of bytes, at least 1 (16777216 by default)")
        }
        guard delay.isFinite, (0...FaultPlan.longestWait).contains(delay) else {
            throw ValidationError("--delay \(delay) is not a number of seconds from 0 to \(Int(FaultPlan.longestWait))")
        }
        do {
            _ = try FaultPlan(parsing: faults)
        } catch {
            throw ValidationError("--faults: \(error)")
        }
        try alwaysOn.validate(store: store)
        if stepsFile != nil && ReceiverConfiguration.isPostgres(database) {
            throw ValidationError("--steps-file names the steps files an older cloudsync wrote beside an SQLite --db; PostgreSQL had none")
        }
        let users = try users()
        guard !Self.isLoopback(host), users == nil, !openToTheNetworkWithoutAToken else { return }
        throw ValidationError("""
            refusing to listen on \(host) without a token: anyone who can reach this machine could write health data \
            and pairings into \(database). Give a token (--token-file FILE or $CLOUDSYNC_TOKEN), listen on 127.0.0.1, \
            or add --open-to-the-network-without-a-token if this network is yours alone
            """)
    }

    /// 127.0.0.0/8, ::1 and localhost: only this machine can connect.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "cloudsync.serve")
        logger.logLevel = .info
        var configuration = ReceiverConfiguration()
        configuration.host = ListenProbe.bare(host)
        configuration.port = port
        configuration.databasePath = database
        configuration.stepsFilePath = stepsFile
        configuration.maxBodySize = maxBodySize ?? 16 << 20
        configuration.maxPushSize = maxBodySize ?? 128 << 20
        // Before any file is made: a start that cannot listen leaves the folder as it was.
        do {
            try ListenProbe.check(host: host, port: port)
        } catch let error as ReceiverError {
            throw Self.report(error)
        }
        if let store {
            do {
                var storeConfiguration = StagingStore.Configuration.saying
                storeConfiguration.writeWait = Receiver.pushWriteWait
                storeConfiguration.checkpointsOnCommit = false
                configuration.patientStores = PersonalStore(store: try StagingStore(path: store, access: .write, configuration: storeConfiguration),
                                                            wait: Receiver.pushWriteWait)
                configuration.alwaysOn = try alwaysOn.alwaysOn(storePath: store, storeConfiguration: .saying, logger: logger)
            } catch let error as ValidationError {
                throw usageError("serve: \(error)", command: "serve")
            } catch {
                throw ExitStatus.report(error)
            }
        }
        if store == nil {
            var storeConfiguration = StagingStore.Configuration.saying
            storeConfiguration.writeWait = Receiver.pushWriteWait
            if ReceiverConfiguration.isPostgres(database) {
                configuration.patientStores = PostgresPatientStores(address: database, configuration: storeConfiguration)
            } else {
                storeConfiguration.pageCacheKiB = 4 << 10
                configuration.patientStores = PatientStoreFolder(folder: PatientStoreFolder.folder(besideDatabase: database),
                                                                 configuration: storeConfiguration, wait: Receiver.pushWriteWait)
            }
        }
        configuration.reportPage = { store, query in try ReportPage.make(store: store, query) }
        configuration.recommendedStartDate = recommendedStartDate
        configuration.users = try users()
        configuration.tokensFile = tokens
        if let tokens {
            SecretFileCheck.warnIfOthersCanRead(tokens, what: "the tokens file", command: "serve")
        } else if let tokenFile = tokenOptions.tokenFile {
            SecretFileCheck.warnIfOthersCanRead(tokenFile, what: "the token file", command: "serve")
        }
        configuration.faults = try FaultPlan(parsing: faults)   // checked by validate()
        configuration.faults.delay = delay
        configuration.dropsUnknownTypes = dropUnknownTypes
        let receiver: Receiver
        do {
            receiver = try await Receiver(configuration: configuration, logger: logger)
        } catch let error as ReceiverError {
            throw Self.report(error)
        } catch {
            printError("\(database): cannot open the receiver's database: \(error)")
            throw ExitStatus.cannotCreate
        }
        // The patients' store tables made (or checked) once the database is known to be usable, before
        // the first request: a role that may not make them is said now, not as a 500 to the first push.
        if let stores = configuration.patientStores as? PostgresPatientStores {
            do { try stores.prepare() } catch { throw ExitStatus.report(error) }
        }
        // As a URL writes it: an IPv6 address in brackets (`http://[::1]:8080`).
        let bareHost = ListenProbe.bare(self.host)
        let host = bareHost.contains(":") ? "[\(bareHost)]" : self.host
        var alwaysOnLines: [String] = []
        if let store, let uploadTo = alwaysOn.uploadTo {
            alwaysOnLines.append("serve: forwarding \(store) to \(uploadTo) (\(alwaysOn.uploadTarget.rawValue)) after each push and file, and every \(alwaysOn.uploadEvery)")
        }
        if let store, let watch = alwaysOn.watch { alwaysOnLines.append("serve: importing the files that appear in \(watch) into \(store)") }
        let said = alwaysOnLines
        do {
            let store = self.store
            let patients = configuration.patientStores
            let database = ReceiverConfiguration.isPostgres(database) ? nil : database
            try await receiver.run { port in
                printError("serve: listening on http://\(host):\(port)")
                if let patients {
                    printError("serve: CloudCare batches, Flō samples, steps, Health Auto Export pushes to "
                               + "http://\(host):\(port)\(Receiver.healthAutoExportPath) and exports to "
                               + "http://\(host):\(port)\(Receiver.exportsPath) go \(patients.destination), each sample counted once")
                }
                if let database { printError("serve: pairings, the Flō backfill's state and the request log go into \(database)") }
                for line in said { printError(line) }
                if store != nil { printError("serve: the report of the store as it is now at http://\(host):\(port)/report") }
            }
        } catch let error as ReceiverError {
            throw Self.report(error)
        }
        printError("serve: stopped")
    }

    /// Says why serve could not start, and gives the exit status that goes with it.
    static func report(_ error: ReceiverError) -> ExitCode {
        switch error {
        case .databaseAddress:
            return usageError("serve: \(error)", command: "serve")
        case .cannotListen, .databaseUnavailable:
            printError("serve: \(error)")
            return ExitStatus.unavailable
        case .databaseRefused:
            printError("serve: \(error)")
            return ExitStatus.noPermission
        case .databaseUnusable:
            printError("serve: \(error)")
            return ExitStatus.cannotCreate
        }
    }
}
