import Hummingbird

/// The users of a receiver and their bearer tokens (`serve --tokens FILE`: one `USER TOKEN` pair per
/// line, whitespace between, `#` comments). A single `--token-file` is the user `default`.
package struct ReceiverUsers: Sendable {
    package static let defaultUser = "default"
    private let entries: [(user: String, token: [UInt8])]

    package init(singleToken: String) {
        entries = [(Self.defaultUser, Array(singleToken.utf8))]
    }

    /// Reads a tokens file; a line that is not `USER TOKEN`, a user named twice or a token given twice
    /// is an error that names the line.
    package init(parsing text: String, file: String) throws {
        var entries: [(String, [UInt8])] = []
        var lines: [(user: String, line: Int)] = []
        // `isNewline`: a file written on Windows ends its lines with CRLF, which Swift reads as one
        // character, not as "\r" then "\n".
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if fields.isEmpty { continue }
            let place = "\(file), line \(index + 1)"
            guard fields.count == 2 else { throw ReceiverUsersError("\(place): expected USER TOKEN, found \(fields.count) words") }
            let user = String(fields[0]), token = Array(fields[1].utf8)
            guard user.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
                throw ReceiverUsersError("\(place): a user name holds letters, digits, '.', '_' and '-' only")
            }
            // Neither word is repeated in this message: with the columns swapped, the first is the token.
            guard token.count >= 16 else {
                throw ReceiverUsersError("\(place): the second word, the token, is shorter than 16 characters (is the line USER TOKEN?)")
            }
            if let first = lines.firstIndex(where: { $0.user == user }) {
                throw ReceiverUsersError("\(place): the same user is named on line \(lines[first].line) too")
            }
            guard !entries.contains(where: { $0.1 == token }) else { throw ReceiverUsersError("\(place): this token is already another user's") }
            entries.append((user, token))
            lines.append((user, index + 1))
        }
        guard !entries.isEmpty else { throw ReceiverUsersError("\(file) names no user (one USER TOKEN pair per line)") }
        self.entries = entries
    }

    package var count: Int { entries.count }

    /// The user whose token this is. Every token is compared, each in constant time, so neither a
    /// token nor which user matched can be learnt from the time the answer takes.
    func user(for token: [UInt8]) -> String? {
        var found: String?
        for entry in entries where BearerTokenMiddleware.constantTimeEquals(token, entry.token) {
            found = entry.user
        }
        return found
    }
}

package struct ReceiverUsersError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}

/// Each request's context: the user its token belongs to (`default` when the receiver has no tokens).
struct ReceiverContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var user = ReceiverUsers.defaultUser

    init(source: Source) {
        coreContext = .init(source: source)
    }
}
