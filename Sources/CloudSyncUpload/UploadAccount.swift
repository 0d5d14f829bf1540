import Crypto
import Foundation

/// Whose data an upload sends: the account on the server that the token opens. What a server
/// acknowledged is kept per account (`upload_target.account`), so that an upload with bob's token
/// by mistake, then with alice's, sends alice what she has not acknowledged, rather than "nothing
/// to upload … acknowledged before" while her metrics sit in bob's account.
///
/// A server keeps one account per token (serve's tokens file maps each token to one user; a
/// backend's bearer token stands for one patient), so the account is named by the token's
/// fingerprint: the first 12 hex digits of its SHA-256, which cannot be turned back into the
/// token. A new token for the same account (rotated) is taken for another account: its upload
/// sends everything again, which the server's deduplication absorbs, and says so.
package enum UploadAccount {
    /// The account of `token`; "no token" for a server that takes none.
    package static func name(token: String?) -> String {
        guard let token, !token.isEmpty else { return "no token" }
        let digest = SHA256.hash(data: Data(token.utf8))
        return "token " + digest.prefix(6).map { String(format: "%02x", $0) }.joined()
    }
}
