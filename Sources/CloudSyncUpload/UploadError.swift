/// Why an upload stopped. Built from status and the server's own words; never holds the token.
public struct UploadError: Error, Sendable, CustomStringConvertible {
    enum Code: Sendable {
        case refusedToken
        case rejected
        case gaveUp
        case invalidServer
        case untrusted
        case interrupted
    }

    let code: Code
    public let description: String

    /// True when the server refused the credentials (401/403): retrying cannot help.
    public var isAuthorization: Bool { code == .refusedToken }
    public var isInterrupted: Bool { code == .interrupted }
    /// True when the command line was wrong (the server's URL).
    public var isUsage: Bool { code == .invalidServer }

    static func refusedToken(_ status: Int, _ words: String, hadToken: Bool) -> UploadError {
        let said = "\(status)\(words.isEmpty ? "" : ": \(words)")"
        guard hadToken else {
            return UploadError(code: .refusedToken, description: "the server wants a token and none was given (\(said)); "
                + "set CLOUDSYNC_TOKEN or pass --token-file FILE")
        }
        return UploadError(code: .refusedToken, description: "the server refused the token (\(said))")
    }
    static func rejected(_ status: Int, _ words: String, what: String) -> UploadError {
        UploadError(code: .rejected, description: "the server rejected \(what) (\(status)\(words.isEmpty ? "" : ": \(words)"))")
    }
    static func gaveUp(_ attempts: Int, _ last: String, what: String) -> UploadError {
        UploadError(code: .gaveUp, description: "gave up on \(what) after \(attempts) \(attempts == 1 ? "attempt" : "attempts"); last: \(last)")
    }
    static func invalidServer(_ why: String) -> UploadError { UploadError(code: .invalidServer, description: why) }
    /// A TLS certificate this machine does not trust: not retried.
    static func untrusted(_ why: String) -> UploadError { UploadError(code: .untrusted, description: why) }
    static let interrupted = UploadError(code: .interrupted, description: "interrupted")
}
