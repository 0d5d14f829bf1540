import CloudSyncHealthAutoExport
import CloudSyncModel

/// The CloudCare envelope read from its bytes by the app's JSON reader (`JSONCursor`), not by
/// `JSONDecoder`, which took 51% of `serve`'s CPU on an upload (perf: 166,056 metrics into `serve`
/// on SQLite). The answers are the decoder's: a body that is not JSON is "not valid JSON"; then,
/// field by field in the envelope's order, a missing field, a null and a value of the wrong type,
/// each named by its path (`metrics[1].metadata`); members the envelope does not name are passed.
enum CloudCareEnvelopeReader {
    static func read(_ bytes: ByteText) -> Result<HealthDataExportBody, FieldProblem> {
        let arena = TextArena()
        let notJSON = FieldProblem(field: "body", message: "not valid JSON", type: "value_error.jsondecode")
        do {
            // The envelope's members are checked as they are captured, to the body's end, before a
            // field is read: the decoder's order (it parses the body whole first), in one pass. A
            // pass of its own before it was a quarter of the reading's scans of every byte.
            var cursor = JSONCursor(bytes: bytes, input: "the request", arena: arena)
            let envelope: Members
            do {
                envelope = try Members(&cursor, at: .body, names: ["userId", "deviceId", "exportTimestamp", "dataRange", "metrics"], depth: 1)
                try cursor.expectEnd()
            } catch {
                // Not an object, or not JSON: the whole body says which the decoder would have said.
                var check = JSONCursor(bytes: bytes, input: "the request", arena: arena)
                guard (try? check.skipValue()) != nil, (try? check.expectEnd()) != nil else { return .failure(notJSON) }
                throw error
            }
            let userId = try envelope.string(0, arena), deviceId = try envelope.string(1, arena)
            let exportTimestamp = try envelope.string(2, arena)
            let range = try Members(envelope.cursor(3, arena), at: .member("dataRange"), names: ["startDate", "endDate"])
            let dataRange = HealthDataExportBody.DataRange(startDate: try range.string(0, arena), endDate: try range.string(1, arena))
            var metrics: [MetricBody] = []
            var list = try envelope.cursor(4, arena, expecting: .array, "an array")
            try list.array { cursor, index in metrics.append(try metric(&cursor, at: index, arena)) }
            return .success(HealthDataExportBody(userId: userId, deviceId: deviceId, exportTimestamp: exportTimestamp,
                                                 dataRange: dataRange, metrics: metrics))
        } catch let problem as FieldProblem {
            return .failure(problem)
        } catch {
            return .failure(FieldProblem(field: "body", message: "\(error)", type: "value_error"))
        }
    }

    /// A metric's members, in `MetricBody`'s order: one array for every metric, not one each.
    private static let metricNames: [StaticString] = ["type", "startDate", "endDate", "value", "unit", "sourceApp", "metadata"]

    private static func metric(_ cursor: inout JSONCursor, at index: Int, _ arena: TextArena) throws -> MetricBody {
        let members = try Members(&cursor, at: .metric(index), names: metricNames)
        let type = try members.string(0, arena), start = try members.string(1, arena)
        let end = try members.string(2, arena), value = try members.number(3, arena)
        let unit = try members.string(4, arena), source = try members.string(5, arena)
        var metadata: [String: JSONValue] = [:]
        var object = try members.cursor(6, arena, expecting: .object, "an object")
        try object.object { cursor, key in metadata[key.string] = try jsonValue(&cursor) }
        return MetricBody(type: type, startDate: start, endDate: end, value: value, unit: unit, sourceApp: source, metadata: metadata)
    }

    /// Any value (the body was checked: it is well formed, and nested at most 64 levels).
    private static func jsonValue(_ cursor: inout JSONCursor) throws -> JSONValue {
        switch try cursor.peekKind() {
        case .string: return .string(try cursor.string().string)
        case .number: return .number(try cursor.number())
        case .bool: return .bool(try cursor.bool())
        case .null:
            _ = try cursor.null()
            return .null
        case .array:
            var values: [JSONValue] = []
            try cursor.array { cursor, _ in values.append(try jsonValue(&cursor)) }
            return .array(values)
        case .object:
            var members: [String: JSONValue] = [:]
            try cursor.object { cursor, key in members[key.string] = try jsonValue(&cursor) }
            return .object(members)
        }
    }

    /// The members of an object that the caller names, as the bytes of their values, read in the
    /// order the caller asks for them (others are passed). Not a dictionary: one per metric, with a
    /// `String` per key, was most of the reading's time.
    /// Where an object is in the body, said only in a problem: a metric's path (`metrics[12]`) was a
    /// `String` made for each metric read.
    enum Place {
        case body, member(String), metric(Int)

        var path: String {
            switch self {
            case .body: ""
            case .member(let name): name
            case .metric(let index): "metrics[\(index)]"
            }
        }
    }

    private struct Members {
        let place: Place
        private let names: [StaticString]
        private var values: [ByteText?]

        /// `depth`: how deep the object's values are in the body, where they are checked as they are
        /// passed (the body's members: 1); values read from captured bytes were checked then.
        init(_ cursor: inout JSONCursor, at place: Place, names: [StaticString], depth: Int = 0) throws {
            self.place = place
            self.names = names
            guard try cursor.peekKind() == .object else {
                throw FieldProblem(field: place.path.isEmpty ? "body" : place.path, mismatch: "an object")
            }
            var values = [ByteText?](repeating: nil, count: names.count)
            cursor.tracksKeys = false
            try cursor.object { cursor, key in
                if let index = names.firstIndex(where: { key.equals($0) }) {
                    values[index] = try cursor.captureValue(depth: depth)
                } else {
                    try cursor.skipValue(depth: depth)
                }
            }
            self.values = values
        }

        init(_ cursor: JSONCursor, at place: Place, names: [StaticString]) throws {
            var cursor = cursor
            try self.init(&cursor, at: place, names: names)
        }

        func path(_ index: Int) -> String {
            let key = names[index].description, field = place.path
            return field.isEmpty ? key : "\(field).\(key)"
        }

        /// A cursor on the value of `names[index]`, which must be there, not null, and of `kind` when given.
        func cursor(_ index: Int, _ arena: TextArena, expecting kind: JSONCursor.ValueKind? = nil, _ what: String = "") throws -> JSONCursor {
            guard let bytes = values[index] else { throw FieldProblem(field: path(index), message: "field required", type: "value_error.missing") }
            var cursor = JSONCursor(bytes: bytes, input: "the request", arena: arena)
            cursor.tracksKeys = false
            let found = try cursor.peekKind()
            if found == .null {
                throw FieldProblem(field: path(index), message: "none is not an allowed value", type: "type_error.none.not_allowed")
            }
            if let kind, found != kind { throw FieldProblem(field: path(index), mismatch: what) }
            return cursor
        }

        func string(_ index: Int, _ arena: TextArena) throws -> String {
            var value = try cursor(index, arena, expecting: .string, "a string")
            return try value.string().string
        }

        func number(_ index: Int, _ arena: TextArena) throws -> Double {
            var value = try cursor(index, arena, expecting: .number, "a number")
            do { return try value.number() } catch { throw FieldProblem(field: path(index), mismatch: "a number") }
        }
    }
}

extension FieldProblem {
    init(field: String, mismatch what: String) {
        self.init(field: field, message: "must be \(what)", type: "type_error")
    }
}
