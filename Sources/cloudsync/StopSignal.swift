import Foundation
import Synchronization

/// SIGINT and SIGTERM ask a long run to stop between two elements, so that what was written stays
/// whole (stdout never ends with half a line) instead of the process dying mid-write.
enum StopSignal {
    private static let flag = Atomic<Bool>(false)

    static var received: Bool { flag.load(ordering: .relaxed) }

    static func install() {
        unblock()
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { _ in
                StopSignal.flag.store(true, ordering: .relaxed)
            }
        }
    }

    /// Installs the handlers and gives the check that a run polls.
    static func installed() -> @Sendable () -> Bool {
        install()
        return { received }
    }

    /// Unblocks SIGINT and SIGTERM on this thread. Why: a parent may start cloudsync with them
    /// blocked (Foundation's `Process` on Linux spawns children with almost every signal blocked),
    /// and a blocked signal stays pending for ever, so Ctrl-C and `kill` would never stop a run.
    /// Called first in `main` (threads made later inherit the mask) and again by `install`.
    static func unblock() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
