import Hummingbird

/// The users of a receiver and their bearer tokens (`serve --tokens FILE`: one user per line,
/// whitespace between the words, `#` comments). A single `--token-file` is the patient `default`.
///
/// - `NAME TOKEN`: a patient, who writes and reads their own data.
/// - `NAME TOKEN reads=alice,bob`: a carer, who reads those patients' data and writes nothing.
/// - `NAME TOKEN admin`: an administrator, who may erase a patient and reads no health data unless
///   also given `reads=`.
package struct ReceiverUsers: Sendable {
    package static let defaultUser = "default"

    /// What a token may do.
    package struct Role: Sendable, Equatable {
        /// Writes its own data (and reads it): a patient.
        package var writesOwnData: Bool
        /// Whose data it may read, besides its own when it writes it.
        package var reads: Set<String>
        /// May erase a patient (`DELETE /api/v1/users/NAME`).
        package var isAdmin: Bool

        static let patient = Role(writesOwnData: true, reads: [], isAdmin: false)

        /// Whether `user`'s data may be read by the token of `me`.
        func mayRead(_ user: String, me: String) -> Bool { (writesOwnData && user == me) || reads.contains(user) }
    }

    private let entries: [(user: String, token: [UInt8], role: Role)]

    /// Every user's name, in the file's order.
    package var names: [String] { entries.map(\.user) }

    package init(singleToken: String) {
        entries = [(Self.defaultUser, Array(singleToken.utf8), .patient)]
    }

    /// Reads a tokens file; a line that is not `USER TOKEN [admin] [reads=A,B]`, a user named twice or
    /// a token given twice is an error that names the line.
    package init(parsing text: String, file: String) throws {
        var entries: [(String, [UInt8], Role)] = []
        var lines: [(user: String, line: Int)] = []
        // `isNewline`: a file written on Windows ends its lines with CRLF, which Swift reads as one
        // character, not as "\r" then "\n".
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if fields.isEmpty { continue }
            let place = "\(file), line \(index + 1)"
            guard (2...4).contains(fields.count) else {
                throw ReceiverUsersError("\(place): expected USER TOKEN [admin] [reads=USER,USER], found \(fields.count) words")
            }
            let user = String(fields[0]), token = Array(fields[1].utf8)
            guard Self.isName(user) else {
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
            entries.append((user, token, try Self.role(fields.dropFirst(2).map(String.init), place: place)))
            lines.append((user, index + 1))
        }
        guard !entries.isEmpty else { throw ReceiverUsersError("\(file) names no user (one USER TOKEN pair per line)") }
        self.entries = entries
    }

    /// The role the words after the token give: none, a patient; `admin`, `reads=…`, or both.
    private static func role(_ words: [String], place: String) throws -> Role {
        guard !words.isEmpty else { return .patient }
        var role = Role(writesOwnData: false, reads: [], isAdmin: false)
        for word in words {
            if word == "admin" && !role.isAdmin {
                role.isAdmin = true
            } else if word.hasPrefix("reads="), role.reads.isEmpty {
                let names = word.dropFirst(6).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard !names.isEmpty, names.allSatisfy(isName) else {
                    throw ReceiverUsersError("\(place): reads= takes user names separated by commas (reads=alice,bob)")
                }
                role.reads = Set(names)
            } else {
                // Not repeated: it could be a second token pasted in.
                throw ReceiverUsersError("\(place): after the token, a line holds 'admin' and 'reads=USER,USER' only")
            }
        }
        return role
    }

    /// Letters, digits, `.`, `_` and `-`: a user name, which also names files (the steps files).
    package static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
    }

    package var count: Int { entries.count }

    /// The user whose token this is, and what it may do. Every token is compared, each in constant
    /// time, so neither a token nor which user matched can be learnt from the time the answer takes.
    func user(for token: [UInt8]) -> (user: String, role: Role)? {
        var found: (String, Role)?
        for entry in entries where BearerTokenMiddleware.constantTimeEquals(token, entry.token) {
            found = (entry.user, entry.role)
        }
        return found
    }
}

package struct ReceiverUsersError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}

/// Each request's context: the user its token belongs to (`default` when the receiver has no tokens),
/// what that token may do, and whose data the request reads (`?user=NAME`, else the caller's own).
struct ReceiverContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var user = ReceiverUsers.defaultUser
    var role = ReceiverUsers.Role.patient
    /// Whose data a reading route answers with: set by `AccessMiddleware` once it is allowed.
    var subject = ReceiverUsers.defaultUser

    init(source: Source) {
        coreContext = .init(source: source)
    }
}
