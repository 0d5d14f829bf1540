import ArgumentParser
import CloudSyncModel
import CloudSyncPairing
import CloudSyncStore
import CloudSyncUpload
import Foundation

struct Pair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Show the pairing QR code (userId and deviceId from the store), or post the pairing request.",
        usage: """
            cloudsync pair [--store PATH] [--device-name NAME] [--png FILE] [--no-qr]
                     [--server URL --android-user-id ID] [--token-file FILE]
                     [--cacert FILE]
            """,
        discussion: """
            Prints the pairing object as JSON on stdout and draws it as a QR code on stderr (or with --png FILE as an \
            image). The code expires 15 minutes after it was made. With --server and --android-user-id, posts the \
            pairing request to {server}/wearables/devices/pair.

            \(ExitStatus.help([ExitStatus.success, ExitStatus.badArguments, ExitStatus.notAStore, ExitStatus.missingStore, ExitStatus.serverFailing,
                               ExitStatus.damagedStore, ExitStatus.unwritableStore, ExitStatus.unwritableOutput,
                               ExitStatus.busyStore, ExitStatus.refusedToken]))
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The device name shown to the other side (default: this machine's host name).")
    var deviceName: String?

    @Option(help: "Also write the QR code as a PNG image.")
    var png: String?

    @Flag(help: "Do not draw the QR code in the terminal.")
    var noQR = false

    @Option(help: "Post the pairing request to this server (the CloudCare base URL).")
    var server: String?

    @Option(help: "The Android user to pair with (with --server).")
    var androidUserId: String?

    @Option(help: ArgumentHelp("Trust the certificate authorities in this PEM file too (a server with a private CA).", valueName: "file"))
    var cacert: String?

    @OptionGroup var tokenOptions: TokenOptions

    func validate() throws {
        if (server == nil) != (androidUserId == nil) { throw ValidationError("--server and --android-user-id go together") }
    }

    func run() async throws {
        if storeOptions.isPostgres {
            throw usageError("pair pairs the phone with a store file; \(storeOptions.path) is a patient's store in a clinic's PostgreSQL, "
                             + "whose phones push to its server", command: "pair")
        }
        var files = SameFileGuard(command: "pair")
        files.store(storeOptions.path)
        if let png { try files.output(png, option: "--png") }
        try files.standardOutput()
        let store = try storeOptions.open(.update)
        defer { store.checkpoint() }
        let identity: (userId: String, deviceId: String)
        do {
            let stored = try store.identity()
            identity = (stored.userId, stored.deviceId)
        } catch { throw ExitStatus.report(error) }
        var request = PairingRequest(userId: identity.userId, deviceId: identity.deviceId,
                                     deviceName: deviceName ?? ProcessInfo.processInfo.hostName)
        let qr = try QRCode(String(decoding: request.json(includingAndroidUser: false), as: UTF8.self))
        if let png {
            do {
                let file = try OutputFile.create(png)
                qr.png().withUnsafeBytes { file.buffer.append($0.bindMemory(to: UInt8.self)) }
                try file.finish()
            } catch {
                printError("\(error)")
                throw ExitStatus.ioError
            }
        }
        if !noQR {
            // The code and its expiry under the QR code, for a person who types it in instead.
            let caption = "pairing code \(request.pairingCode), expires \(Self.readable(request.expiresAt)) (in 15 minutes)"
            FileHandle.standardError.write(Data((qr.terminalText() + "\n" + caption + "\n").utf8))
        }
        if let server, let androidUserId {
            request.androidUserId = androidUserId
            guard let url = URL(string: server), url.host != nil else { throw usageError("--server '\(server)' is not a URL", command: "pair") }
            do {
                let answer = try await JSONPoster.post(server: url, path: "/wearables/devices/pair",
                                                       json: request.json(includingAndroidUser: true), token: try tokenOptions.token(),
                                                       caCertificates: cacert)
                try StandardOutput.write(answer.body + Data("\n".utf8))
            } catch let error as UploadError {
                printError("pairing with \(server) failed: \(error.description)")
                throw error.isAuthorization ? ExitStatus.noPermission : error.isUsage ? ExitStatus.usage : ExitStatus.unavailable
            }
            return
        }
        try StandardOutput.write(request.json(includingAndroidUser: false) + Data("\n".utf8))
    }

    /// `2026-11-23T05:15:00.000Z` as `2026-11-23 05:15 UTC`.
    static func readable(_ iso: String) -> String {
        String(iso.prefix(16)).replacingOccurrences(of: "T", with: " ") + " UTC"
    }
}
