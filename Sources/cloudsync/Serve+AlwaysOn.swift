import ArgumentParser
import CloudSyncKinds
import CloudSyncModel
import CloudSyncReceiver
import CloudSyncReport
import CloudSyncInputs
import CloudSyncStore
import CloudSyncUpload
import Foundation
import Logging

/// `serve --store`'s always-on options: forwarding to a backend, a watched folder.
struct AlwaysOnOptions: ParsableArguments {
    @Option(help: ArgumentHelp("With --store: upload what is pending to this server after each push and file, and every --upload-every.", valueName: "url"))
    var uploadTo: String?

    @Option(help: "cloudcare, flo or steps (with --upload-to).")
    var uploadTarget: UploadTarget = .cloudcare

    @Option(help: ArgumentHelp("The token of --upload-to's server, from this file (not the command line).", valueName: "file"))
    var uploadTokenFile: String?

    @Option(help: ArgumentHelp("Trust the certificate authorities in this PEM file too, for --upload-to.", valueName: "file"))
    var uploadCacert: String?

    @Option(help: ArgumentHelp("How often to forward without a push: 60s, 5m, 1h (10s to 1d).", valueName: "interval"))
    var uploadEvery = "60s"

    @Option(help: ArgumentHelp("With --store: import every Health Auto Export file and export.zip/export.xml that appears in this folder, once.",
                               valueName: "dir"))
    var watch: String?

    /// `60s`, `5m`, `1h`, `1d`, or seconds.
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let unit = text.last.flatMap({ units[Character($0.lowercased())] }) { return Double(text.dropLast()).map { $0 * unit } }
        return Double(text)
    }

    func validate(store: String?) throws {
        guard store != nil || (uploadTo == nil && watch == nil) else {
            throw ValidationError("--upload-to and --watch work on a staging store: give --store PATH too")
        }
        if let uploadTo {
            guard let url = URL(string: uploadTo), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ValidationError("--upload-to \(uploadTo) is not an http:// or https:// URL")
            }
        } else if uploadTokenFile != nil || uploadCacert != nil {
            throw ValidationError("--upload-token-file and --upload-cacert go with --upload-to URL")
        }
        guard let every = Self.seconds(uploadEvery), every.isFinite, (10...86_400).contains(every) else {
            throw ValidationError("--upload-every \(uploadEvery) is not an interval from 10s to 1d (60s, 5m, 1h)")
        }
        if let watch {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: watch, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--watch \(watch) is not a folder")
            }
        }
    }

    /// The forwarding, the watched folder and `GET /report` of the store at `storePath`.
    func alwaysOn(storePath: String, storeConfiguration: StagingStore.Configuration, logger: Logger) throws -> AlwaysOn {
        var alwaysOn = AlwaysOn()
        var forwarder: Forwarder?
        if let uploadTo, let server = URL(string: uploadTo) {
            var upload = UploadConfiguration(server: server)
            upload.target = uploadTarget
            upload.caCertificates = uploadCacert
            if let uploadTokenFile {
                guard let text = try? String(contentsOfFile: uploadTokenFile, encoding: .utf8),
                      case let token = text.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty else {
                    throw ValidationError("cannot read a token from --upload-token-file \(uploadTokenFile)")
                }
                upload.token = token
            }
            var forwarding = StagingStore.Configuration.saying
            forwarding.kinds = storeConfiguration.kinds
            let made = Forwarder(settings: .init(storePath: storePath, store: forwarding, upload: upload, every: Self.seconds(uploadEvery) ?? 60),
                                 logger: logger)
            forwarder = made
            alwaysOn.services.append(BackgroundJob({ await made.run() }))
            alwaysOn.afterPush = { made.nudge() }
        }
        var watcher: FolderWatcher?
        if let watch {
            let folder = URL(fileURLWithPath: watch).standardizedFileURL.path
            let made = FolderWatcher(settings: .init(folder: folder, storePath: storePath, store: storeConfiguration),
                                     say: { logger.info("\($0)") },
                                     imported: { [forwarder] in forwarder?.nudge() })
            watcher = made
            alwaysOn.services.append(BackgroundJob({
                made.start()
                while !Task.isCancelled { try? await Task.sleep(nanoseconds: 200_000_000) }
            }, stop: { made.stop() }))
        }
        alwaysOn.health = { [forwarder, watcher] in
            var said = StoreHealth()
            if let forwarder { said.forwarding = forwarder.health() }
            if let watcher { said.watch = watcher.health() }
            return try? JSONEncoder().encode(said)
        }
        return alwaysOn
    }

    /// What `GET /health` says of the store's services.
    struct StoreHealth: Encodable {
        var forwarding: ForwardingStatus?
        var watch: FolderWatcher.Health?
    }
}
