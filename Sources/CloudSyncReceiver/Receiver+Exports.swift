import CloudSyncExport
import CloudSyncModel
import CloudSyncInputs
import CloudSyncStore
import Foundation
import Hummingbird
import Logging
import NIOCore

/// An upload that stopped before its end: the import is told to stop.
private final class UploadState: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    var isStopped: Bool { lock.withLock { stopped } }
    func stop() { lock.withLock { stopped = true } }
}

extension Receiver {
    /// Where a patient sends an Apple Health export (the phone's `export.zip`, or its `export.xml`).
    package static let exportsPath = "/api/v1/exports"

    /// The media types of an export's body.
    static let exportTypes: Set<String> = ["application/zip", "application/x-zip-compressed", "application/xml", "text/xml"]

    /// `POST /api/v1/exports`: the body is imported into the patient's store as it arrives, through a
    /// socket into the same reader as `import -` (no copy on disk; memory flat), in one transaction:
    /// 201 with what was stored once the last byte is in and committed; 422 for a body that is not an
    /// export or is damaged, 415 for another Content-Type, 413 above `maxExportSize`, 503/507 as for
    /// a push. A connection that drops before the end, or any refusal, leaves nothing of the export.
    func addExportsRoute(_ router: Router<ReceiverContext>) {
        let limit = configuration.maxExportSize
        router.post(RouterPath(stringLiteral: Self.exportsPath)) { request, context -> Response in
            let mediaType = request.headers[.contentType]?.split(separator: ";").first
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let mediaType, Self.exportTypes.contains(mediaType) else {
                return JSONResponse.make(.unsupportedMediaType, [
                    "detail": "send the export as Content-Type: application/zip (export.zip) or application/xml (export.xml); nothing was stored",
                ])
            }
            let socket: BodySocket
            do { socket = try BodySocket() } catch {
                return JSONResponse.make(.internalServerError, ["detail": "cannot take the upload: \(error); nothing was stored"])
            }
            let state = UploadState()
            let user = context.user
            let input = ExportInput.stream(descriptor: socket.readEnd, name: "the uploaded export")
            // The read end is closed whatever happened (the store may not even open): a write waiting
            // on a full socket then fails instead of waiting for ever.
            async let imported = { () async -> Result<ExportImportResult, any Error> in
                let result = await stores.write(owner: user) { store in
                    try store.importExport(input, origin: .uploadedExport(input: "an upload of \(user)'s"),
                                           control: RunControl(shouldStop: { state.isStopped }))
                }
                socket.closeReadEnd()
                return result
            }()
            var received = 0
            var tooLarge = false
            var first: UInt8?
            do {
                for try await chunk in request.body {
                    if first == nil { first = chunk.readableBytesView.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) } }
                    received += chunk.readableBytes
                    if received > limit {
                        tooLarge = true
                        state.stop()
                        break
                    }
                    do { try await socket.write(chunk) } catch { break }  // the import stopped reading: it says why
                }
                if !tooLarge { try? await socket.flush() }
            } catch {
                // The connection dropped before the end: nothing of the export is kept.
                state.stop()
            }
            socket.closeWriteEnd()
            let result = await imported
            if tooLarge {
                return JSONResponse.make(.contentTooLarge, ["detail": "the export is larger than \(limit) bytes; nothing was stored"])
            }
            if state.isStopped {
                logger.notice("an export upload stopped before its end; nothing of it was stored", metadata: ["user": "\(user)", "bytes": "\(received)"])
                return JSONResponse.make(.badRequest, ["detail": "the upload stopped before its end; nothing was stored"])
            }
            switch result {
            case .success(let imported):
                logger.info("export stored", metadata: ["user": "\(user)", "export.stored": "\(imported.stored.new)",
                                                        "export.already": "\(imported.stored.already)", "bytes": "\(received)"])
                return JSONResponse.make(.created, Self.reply(imported, bytes: received))
            case .failure(ConversionError.notAnExport) where first == UInt8(ascii: "{") || first == UInt8(ascii: "["):
                return JSONResponse.make(.unprocessableContent, [
                    "detail": "the body is JSON, not an Apple Health export: Health Auto Export's pushes go to POST \(Self.healthAutoExportPath); nothing was stored",
                ])
            case .failure(let error as ConversionError):
                return JSONResponse.make(.unprocessableContent, ["detail": error.description + "; nothing was stored"])
            case .failure(let error):
                logger.error("export upload failed", metadata: ["user": "\(user)", "error": "\(error)"])
                return Self.refusal(error)
            }
        }
    }

    /// The reply: what the store added and had, by kind, and what the archive held.
    static func reply(_ result: ExportImportResult, bytes: Int) -> [String: Any] {
        let stored = result.stored
        var reply: [String: Any] = [
            "bytes": bytes,
            "metrics": result.conversion.metrics,
            "stored": stored.new,
            "alreadyThere": stored.already,
            "repeats": stored.repeats,
            "writtenTwice": stored.writtenTwice,
            "records": stored.records.filter { $0.value.new + $0.value.already > 0 }
                .mapValues { ["new": $0.new, "alreadyThere": $0.already] },
            "damagedFiles": result.archive.damaged.map { ["file": $0.entry, "problem": $0.problem] },
        ]
        if let exportDate = result.conversion.facts.exportDate { reply["exportDate"] = exportDate }
        return reply
    }
}
