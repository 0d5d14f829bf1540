import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// The users the server knows now: `serve --tokens FILE` reads the file again on SIGHUP, and the
/// next request is checked against what it says (a token removed is refused at once, a user added
/// is let in), without a restart. A file that no longer reads keeps the users as they were.
package final class CurrentUsers: @unchecked Sendable {
    private let lock = NSLock()
    private var users: ReceiverUsers

    package init(_ users: ReceiverUsers) { self.users = users }

    var now: ReceiverUsers { lock.withLock { users } }

    func replace(with users: ReceiverUsers) { lock.withLock { self.users = users } }
}

/// Runs with the server: on each SIGHUP, reads the tokens file again into `CurrentUsers` and says
/// what it did in the log (how many users, never a token). Without a tokens file, a SIGHUP is said
/// and changes nothing: it never stops the server, as the signal's default would.
struct TokensReload: Service {
    let file: String?
    let users: CurrentUsers?
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        for await _ in signals.cancelOnGracefulShutdown() {
            guard let file, let users else {
                logger.notice("SIGHUP: no tokens file to read again (serve --tokens FILE)")
                continue
            }
            do {
                let text = try String(contentsOfFile: file, encoding: .utf8)
                let read = try ReceiverUsers(parsing: text, file: file)
                users.replace(with: read)
                logger.notice("SIGHUP: read the tokens file \(file) again: \(read.count) users")
            } catch {
                logger.error("SIGHUP: the tokens file \(file) cannot be used, the users stay as they were: \(error)")
            }
        }
    }
}
