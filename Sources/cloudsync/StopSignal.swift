import Foundation
import Synchronization

/// SIGINT and SIGTERM ask a long run to stop between two elements, so that what was written stays
/// whole (stdout never ends with half a line) instead of the process dying mid-write.
enum StopSignal {
    private static let flag = Atomic<Bool>(false)

    static var received: Bool { flag.load(ordering: .relaxed) }

    static func install() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { _ in
                StopSignal.flag.store(true, ordering: .relaxed)
            }
        }
    }
}
