/// Why an upload stopped. Built from status and the server's own words; never holds the token.
package struct UploadError: Error, Sendable, CustomStringConvertible {
    enum Code: Sendable {
        case refusedToken
        case notPaired
        case rejected
        case notFound
        case gaveUp
        case invalidServer
        case untrusted
        case interrupted
    }

    let code: Code
    package let description: String

    /// True when the server refused the credentials (401/403) or this device (CloudCare's 403): retrying
    /// cannot help.
    package var isAuthorization: Bool { code == .refusedToken || code == .notPaired }
    package var isInterrupted: Bool { code == .interrupted }
    /// True when the command line was wrong (the server's URL).
    package var isUsage: Bool { code == .invalidServer || code == .notFound }

    /// What would help, said after the error: retrying helps only when the server or the network failed.
    package var advice: String? {
        switch code {
        case .refusedToken:
            return "nothing more was sent; what the server acknowledged before is kept. Give the token the server expects "
                + "(CLOUDSYNC_TOKEN or --token-file FILE), then upload again"
        case .notPaired:
            return "nothing more was sent; what the server acknowledged before is kept. Pair this store's device with the "
                + "server first (cloudsync pair --server URL --android-user-id ID), then upload again"
        case .notFound:
            return "check --server: it is the base URL the target's paths are added to (CloudCare: https://HOST/api/v1; "
                + "Flō: https://HOST; steps: http://HOST:PORT); nothing was sent there"
        case .rejected:
            return "what the server acknowledged before is kept; the refused batch is in the upload history (cloudsync status). "
                + "Uploading again sends it again, so fix what the server said first"
        case .gaveUp:
            return "what the server acknowledged before is kept; upload again to continue when the server answers"
        case .untrusted, .invalidServer, .interrupted:
            return nil
        }
    }

    static func refusedToken(_ status: Int, _ words: String, hadToken: Bool) -> UploadError {
        let said = "\(status)\(words.isEmpty ? "" : ": \(words)")"
        guard hadToken else {
            return UploadError(code: .refusedToken, description: "the server wants a token and none was given (\(said)); "
                + "set CLOUDSYNC_TOKEN or pass --token-file FILE")
        }
        return UploadError(code: .refusedToken, description: "the server refused the token (\(said))")
    }
    /// CloudCare's 403: the device (the store's deviceId) is not paired with a patient.
    static func notPaired(_ words: String) -> UploadError {
        UploadError(code: .notPaired, description: "the server does not know this device: it is not paired (403\(words.isEmpty ? "" : ": \(words)"))")
    }
    static func rejected(_ status: Int, _ words: String, what: String) -> UploadError {
        UploadError(code: .rejected, description: "the server rejected \(what) (\(status)\(words.isEmpty ? "" : ": \(words)"))")
    }
    /// 404: the server has no such endpoint, so the URL is wrong (or it is not that kind of server).
    static func notFound(_ url: String, contract: String) -> UploadError {
        UploadError(code: .notFound, description: "\(url) does not exist on the server (404): it has no \(contract) endpoint at that address")
    }
    static func gaveUp(_ attempts: Int, _ last: String, what: String) -> UploadError {
        UploadError(code: .gaveUp, description: "gave up on \(what) after \(attempts) \(attempts == 1 ? "attempt" : "attempts"); last: \(last)")
    }
    static func invalidServer(_ why: String) -> UploadError { UploadError(code: .invalidServer, description: why) }
    /// A TLS certificate this machine does not trust: not retried.
    static func untrusted(_ why: String) -> UploadError { UploadError(code: .untrusted, description: why) }
    static let interrupted = UploadError(code: .interrupted, description: "interrupted")
}
