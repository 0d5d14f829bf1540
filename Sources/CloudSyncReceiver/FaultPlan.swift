import Foundation

/// Faults injected into the data endpoints (CloudCare import, Flō samples, steps), for testing
/// clients against a real server: `--faults 503,429:2,ok,lost:3,stall:5`. The n-th data request
/// gets the n-th action; after the list, every request is served normally.
///
/// - `503` (any status 500–599): answer that status, store nothing.
/// - `429:S`: answer 429 with `Retry-After: S`, store nothing.
/// - `lost:S`: store the batch, then wait S seconds before answering, so that a client with a
///   shorter timeout never sees the acknowledgement (an ack lost in transit).
/// - `stall:S`: store nothing and say nothing for S seconds (a server that stops answering).
/// - `ok`: serve normally.
package struct FaultPlan: Sendable, Equatable {
    package enum Action: Sendable, Equatable {
        case ok
        case status(Int)
        case tooManyRequests(retryAfter: Int)
        case lostAcknowledgement(seconds: Double)
        case stall(seconds: Double)
    }

    package var actions: [Action] = []
    /// Added to every data request (a slow server).
    package var delay: Double = 0

    package init(actions: [Action] = [], delay: Double = 0) {
        self.actions = actions
        self.delay = delay
    }

    /// The longest wait a fault or `--delay` may ask for, in seconds (an hour): more is a typo, and
    /// an infinite or huge one would trap when it became a `Duration`.
    package static let longestWait = 3600.0

    /// Parses `503,429:2,ok,lost:3,stall:5`.
    package init(parsing text: String) throws {
        for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            let parts = item.split(separator: ":", maxSplits: 1).map(String.init)
            var seconds: Double?
            if parts.count > 1 {
                guard let value = Double(parts[1]), value.isFinite, (0...Self.longestWait).contains(value) else {
                    throw FaultPlanError(item: item, problem: "'\(parts[1])' is not a number of seconds from 0 to \(Int(Self.longestWait))")
                }
                seconds = value
            }
            switch parts[0] {
            case "ok": actions.append(.ok)
            case "429":
                // Retry-After is a whole number of seconds.
                guard seconds.map({ $0 == $0.rounded() }) ?? true else {
                    throw FaultPlanError(item: item, problem: "Retry-After is a whole number of seconds")
                }
                actions.append(.tooManyRequests(retryAfter: Int(seconds ?? 1)))
            case "lost": actions.append(.lostAcknowledgement(seconds: seconds ?? 30))
            case "stall": actions.append(.stall(seconds: seconds ?? 30))
            default:
                guard let code = Int(parts[0]), (500...599).contains(code), parts.count == 1 else {
                    throw FaultPlanError(item: item, problem: "use 5xx, 429:S, lost:S, stall:S or ok")
                }
                actions.append(.status(code))
            }
        }
    }
}

package struct FaultPlanError: Error, CustomStringConvertible {
    package var item: String
    package var problem: String
    package var description: String { "fault '\(item)': \(problem)" }
}

/// Hands out the plan's actions in request order (shared by all connections).
final class FaultSchedule: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: ArraySlice<FaultPlan.Action>
    let delay: Double

    init(_ plan: FaultPlan) {
        remaining = plan.actions[...]
        delay = plan.delay
    }

    func next() -> FaultPlan.Action {
        lock.lock()
        defer { lock.unlock() }
        return remaining.popFirst() ?? .ok
    }
}
